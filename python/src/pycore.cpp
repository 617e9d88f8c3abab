// libgatescope_pycore.so is gatescope_core, gatescope_data and gatescope_kernels linked whole
// (python/CMakeLists.txt says why); a shared library needs one source of its own.
namespace gatescope::python {
extern const char* const kPycore;
const char* const kPycore = "gatescope_pycore";
}  // namespace gatescope::python
