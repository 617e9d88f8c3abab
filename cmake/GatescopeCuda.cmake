# CUDA architectures for gatescope, independent of the compiler's default.
#
# Include before enable_language(CUDA) (or project(... CUDA)): enable_language defines
# CMAKE_CUDA_ARCHITECTURES from nvcc's default (sm_75 on CUDA 12/13) when nothing set it first,
# and our kernels need sm_80 (cp.async, mma.sync). Default: real code for sm_80 and sm_90 plus
# PTX of sm_90 for newer GPUs. CUDAARCHS in the environment or -DCMAKE_CUDA_ARCHITECTURES=...
# still win.
if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES AND NOT DEFINED ENV{CUDAARCHS})
    set(CMAKE_CUDA_ARCHITECTURES "80-real;90" CACHE STRING
        "CUDA architectures of the kernels (the wgmma forward is always sm_90a alone)")
endif()

# gatescope_cuda_sm90a_objects(<target> <sources...>): compiles sources that use sm_90a-only
# instructions (wgmma, setmaxnreg) for sm_90a alone, whatever CMAKE_CUDA_ARCHITECTURES says,
# and adds the objects to <target>. Other GPUs never run them (launchWgmma probes first).
function(gatescope_cuda_sm90a_objects target)
    set(_objects ${target}_sm90a)
    add_library(${_objects} OBJECT ${ARGN})
    set_target_properties(${_objects} PROPERTIES CUDA_ARCHITECTURES OFF
        POSITION_INDEPENDENT_CODE ON)
    target_compile_options(${_objects} PRIVATE
        $<$<COMPILE_LANGUAGE:CUDA>:-gencode=arch=compute_90a,code=sm_90a --expt-relaxed-constexpr
        -lineinfo>)
    # The target's own include paths and definitions (it is being defined; read them at generation).
    target_include_directories(${_objects} PRIVATE
        $<TARGET_PROPERTY:${target},INCLUDE_DIRECTORIES>)
    target_compile_definitions(${_objects} PRIVATE
        $<TARGET_PROPERTY:${target},COMPILE_DEFINITIONS>)
    target_sources(${target} PRIVATE $<TARGET_OBJECTS:${_objects}>)
endfunction()
