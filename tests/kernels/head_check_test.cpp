#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "additive_head.h"
#include "kernels/cpu/head_check.h"

namespace gatescope {
namespace {

using test::additive::HeadSpec;
using test::additive::RandomHead;

void expectError(const Status& status, ErrorKind kind, const std::string& fragment) {
    ASSERT_FALSE(status);
    EXPECT_EQ(status.error().kind, kind);
    EXPECT_NE(status.error().message.find(fragment), std::string::npos) << status.error().message;
    EXPECT_EQ(status.error().object, "layer 2 head 1");
}

TEST(HeadCheck, AcceptsAValidHead) {
    HeadSpec spec;
    spec.rowPad = 3;
    RandomHead head(spec);
    head.lse.assign(spec.n, 0.5f);
    EXPECT_TRUE(kernels::checkHead(head.view(), {.values = true, .lse = true}));
}

TEST(HeadCheck, NamesTheFirstProblem) {
    const std::string who = "layer 2 head 1";
    HeadSpec spec;
    spec.n = 40;
    RandomHead head(spec);

    auto view = head.view();
    view.n = -1;
    expectError(kernels::checkHead(view, {}, who), ErrorKind::Shape, "negative sequence length");
    view = head.view();
    view.dk = 0;
    expectError(kernels::checkHead(view, {}, who), ErrorKind::Shape, "dimension must be >= 1");
    view = head.view();
    view.kStride = 3;
    expectError(kernels::checkHead(view, {}, who), ErrorKind::Shape, "row stride");
    view = head.view();
    view.window = -2;
    expectError(kernels::checkHead(view, {}, who), ErrorKind::Shape, "negative window");
    view = head.view();
    view.v = nullptr;
    expectError(kernels::checkHead(view, {.values = true}, who), ErrorKind::Missing,
                "v is missing");
    EXPECT_TRUE(kernels::checkHead(view, {}, who));  // v is not read without values
    view = head.view();
    expectError(kernels::checkHead(view, {.lse = true}, who), ErrorKind::Missing, "lse");

    head.k[5 * spec.dk + 4] = std::numeric_limits<float>::quiet_NaN();
    expectError(kernels::checkHead(head.view(), {}, who), ErrorKind::Format,
                "k row 5 column 4 is nan");
    head.k[5 * spec.dk + 4] = 0.0f;
    head.c[17] = -std::numeric_limits<float>::infinity();
    expectError(kernels::checkHead(head.view(), {}, who), ErrorKind::Format,
                "log-decay cumsum row 17 is -inf");
}

}  // namespace
}  // namespace gatescope
