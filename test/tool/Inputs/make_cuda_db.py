"""make_cuda_db.py OUTDIR TORCH_INCLUDE CUDA_ROOT [SOURCES]: compilation
databases of a CUDA extension (SOURCES, a folder next to this script;
default cuda-ext/: ops.cu and scale.cu, one torch-discarded-to finding
each, and binding.cpp, one more) as its builds write them:

  OUTDIR/ext/compile_commands.json    torch.utils.cpp_extension's build.ninja
                                      through `ninja -t compdb`: nvcc with
                                      --generate-dependencies-with-compile,
                                      --compiler-options ''"'"'-fPIC'"'"'',
                                      -gencode=..., c++ for the binding
  OUTDIR/cmake/compile_commands.json  CMake with enable_language(CUDA):
                                      -forward-unknown-to-host-compiler,
                                      -isystem=DIR, --generate-code=...,
                                      -Xcompiler=-fPIC, -x cu, --options-file
  OUTDIR/bare/compile_commands.json   the cpp_extension database with a bare
                                      `nvcc` that is not on PATH

Their nvcc is OUTDIR/toolkit/bin/nvcc (a stub) in a toolkit whose include/
is CUDA_ROOT's, so the toolkit is found from the command's nvcc. TORCH_INCLUDE
is a CUDA LibTorch's include folder."""
import json, os, shutil, stat, sys

out, torch, cuda = sys.argv[1:4]
here = os.path.dirname(os.path.abspath(__file__))
sources = os.path.join(here, sys.argv[4] if len(sys.argv) > 4 else "cuda-ext")
names = sorted(os.listdir(sources))
src = os.path.join(out, "src")
build = os.path.join(out, "build", "temp.linux-x86_64-cpython-311")
toolkit = os.path.join(out, "toolkit")
for d in (src, build, os.path.join(toolkit, "bin")):
    os.makedirs(d, exist_ok=True)
for name in names:
    shutil.copy(os.path.join(sources, name), os.path.join(src, name))
os.symlink(os.path.join(cuda, "include"), os.path.join(toolkit, "include"))
nvcc = os.path.join(toolkit, "bin", "nvcc")
with open(nvcc, "w") as f:
    f.write("#!/bin/sh\nexit 1\n")
os.chmod(nvcc, stat.S_IRWXU)

api = os.path.join(torch, "torch", "csrc", "api", "include")
py = "/usr/include/python3.11"
post = ("-D__CUDA_NO_HALF_OPERATORS__ -D__CUDA_NO_HALF_CONVERSIONS__ "
        "-D__CUDA_NO_BFLOAT16_CONVERSIONS__ -D__CUDA_NO_HALF2_OPERATORS__ "
        "--expt-relaxed-constexpr --compiler-options ''\"'\"'-fPIC'\"'\"'' -O2 "
        "-DTORCH_API_INCLUDE_EXTENSION_H '-DPYBIND11_COMPILER_TYPE=\"_gcc\"' "
        "-DTORCH_EXTENSION_NAME=my_ext -D_GLIBCXX_USE_CXX11_ABI=1 "
        "-gencode=arch=compute_80,code=compute_80 "
        "-gencode=arch=compute_80,code=sm_80 -std=c++17")


def ext_entry(compiler, name):
    obj = os.path.join(build, name + ".o")
    s = os.path.join(src, name)
    if name.endswith(".cu"):
        cmd = ("%s --generate-dependencies-with-compile --dependency-output "
               "%s.d -I%s -I%s -I%s/include -I%s -c -c %s -o %s %s"
               % (compiler, obj, torch, api, toolkit, py, s, obj, post))
    else:
        cmd = ("c++ -MMD -MF %s.d -pthread -B /opt/conda/compiler_compat "
               "-Wno-unused-result -Wsign-compare -DNDEBUG -fwrapv -O2 -Wall "
               "-fPIC -I%s -I%s -I%s/include -I%s -c -c %s -o %s "
               "-DTORCH_API_INCLUDE_EXTENSION_H -DTORCH_EXTENSION_NAME=my_ext "
               "-D_GLIBCXX_USE_CXX11_ABI=1 -std=c++17"
               % (obj, torch, api, toolkit, py, s, obj))
    return {"directory": build, "command": cmd, "file": s, "output": obj}


def write(folder, entries):
    os.makedirs(os.path.join(out, folder), exist_ok=True)
    with open(os.path.join(out, folder, "compile_commands.json"), "w") as f:
        json.dump(entries, f, indent=1)


write("ext", [ext_entry(nvcc, n) for n in names])
write("bare", [ext_entry("nvcc", n) for n in names])

cmake_build = os.path.join(out, "cmake-build")
os.makedirs(os.path.join(cmake_build, "CMakeFiles", "my_ext.dir"),
            exist_ok=True)
rsp = os.path.join("CMakeFiles", "my_ext.dir", "includes_CUDA.rsp")
with open(os.path.join(cmake_build, rsp), "w") as f:
    f.write("-isystem=%s -isystem=%s" % (torch, api))
cmake = []
for n in names:
    o = "CMakeFiles/my_ext.dir/src/%s.o" % n
    if n.endswith(".cu"):
        cmd = ("%s -forward-unknown-to-host-compiler -DTORCH_EXTENSION_NAME="
               "my_ext --options-file %s -isystem=%s/include -O3 -DNDEBUG "
               "--generate-code=arch=compute_80,code=[compute_80,sm_80] "
               "-Xcompiler=-fPIC -std=c++17 -MD -MT %s -MF %s.d -x cu -c %s "
               "-o %s" % (nvcc, rsp, toolkit, o, o, os.path.join(src, n), o))
    else:
        cmd = ("/usr/bin/c++ -DTORCH_EXTENSION_NAME=my_ext -isystem %s "
               "-isystem %s -O3 -DNDEBUG -std=gnu++17 -fPIC -MD -MT %s -MF "
               "%s.d -o %s -c %s" % (torch, api, o, o, o, os.path.join(src, n)))
    cmake.append({"directory": cmake_build, "command": cmd,
                  "file": os.path.join(src, n), "output": o})
write("cmake", cmake)
