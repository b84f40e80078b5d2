# lit configuration: every test runs against the real LibTorch headers,
# through a precompiled <torch/torch.h> built by CMake.
import os
import lit.formats

config.name = "torch-tidy"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".cpp", ".cu", ".test"]
config.excludes = ["Inputs", "lit", "CMakeLists.txt", "torch_pch.h",
                   "torch_cuda_pch.h"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.torch_tidy_obj_root, "test")
# Another LibTorch header set (test/CMakeLists.txt, add_header_set): the
# check tests only, without the plugin runs.
if config.header_set:
    config.name = "torch-tidy " + config.header_set
    config.test_source_root = os.path.join(os.path.dirname(__file__), "checks")
    config.test_exec_root = os.path.join(config.torch_tidy_obj_root, "test",
                                         config.header_set)

config.environment["PATH"] = os.pathsep.join(
    [config.llvm_tools_dir, os.environ.get("PATH", "")])
for var in ("HOME", "TMPDIR"):
    if var in os.environ:
        config.environment[var] = os.environ[var]

flags = "%s -include-pch %s" % (config.torch_flags, config.torch_pch)
test_dir = os.path.dirname(__file__)
check_script = os.path.join(test_dir, "lit", "check_torch_tidy.py")
common = ("--torch-tidy %s --clang-tidy %s --plugin %s --clangxx %s "
          "--filecheck %s --resource-dir %s" % (
              config.torch_tidy, config.clang_tidy_22, config.plugin,
              config.clangxx, config.filecheck, config.resource_dir))

# A sanitizer build (-DTORCH_TIDY_SANITIZE=...) runs torch-tidy under ASan and
# UBSan, stopping at the first error. Its checks library can not be loaded
# into the uninstrumented clang-tidy-22, so plugin runs are skipped there.
if config.sanitize:
    config.available_features.add("sanitizers")
    config.environment["ASAN_OPTIONS"] = (
        "halt_on_error=1:abort_on_error=0:detect_leaks=1:"
        "detect_stack_use_after_return=1:strict_string_checks=1")
    config.environment["UBSAN_OPTIONS"] = "halt_on_error=1:print_stacktrace=1"
    config.environment["LSAN_OPTIONS"] = "suppressions=%s" % os.path.join(
        test_dir, "lit", "lsan.supp")
    common += " --skip-plugin"
if config.header_set:
    common += " --skip-plugin"
common += " --"

config.substitutions.append(("%check_torch_tidy",
                             "%s %s %s" % (config.python, check_script, common)))
config.substitutions.append(("%torch_flags", flags))
# A CUDA unit's host side, with the header set's CUDA-mode precompiled
# header (test/CMakeLists.txt); the CUDA LibTorch's set has ATen/cuda, c10/cuda
# and the extension API in it.
if config.cuda_flags:
    config.available_features.add("cuda")
    config.substitutions.append(("%cuda_flags", "%s -include-pch %s" % (
        config.cuda_flags, config.cuda_pch)))
    config.substitutions.append(("%cuda_root", config.cuda_root))
if config.header_set.startswith("libtorch-cuda"):
    config.available_features.add("libtorch-cuda")
# The check tests' CUDA-unit variants (`%if cuda-variants`) run in the CUDA
# LibTorch's header set, which parses them with ATen/cuda and c10/cuda as
# well; the main set runs them only where that set is absent.
cuda_libtorch_set = os.path.exists(os.path.join(
    config.torch_tidy_obj_root, "test", "libtorch-cuda-2.6", "lit.site.cfg.py"))
if config.cuda_flags and (config.header_set.startswith("libtorch-cuda") or
                          not cuda_libtorch_set):
    config.available_features.add("cuda-variants")
# The CUDA LibTorch's headers, for the tool tests' CUDA extensions.
if config.cuda_flags and os.path.exists(os.path.join(
        config.libtorch_cuda_include, "ATen", "cuda", "CUDAContext.h")):
    config.available_features.add("libtorch-cuda-headers")
    config.substitutions.append(("%libtorch_cuda_include",
                                 config.libtorch_cuda_include))
# Without the tests' precompiled header: <torch/torch.h> parsed in full.
config.substitutions.append(("%full_parse_flags", config.torch_flags))
config.substitutions.append(("%torch-tidy", config.torch_tidy))
config.substitutions.append(("%torch-clangd", config.torch_clangd))
config.substitutions.append(("%clang-tidy-22", config.clang_tidy_22))
config.substitutions.append(("%plugin", config.plugin))
config.substitutions.append(("%clangxx", config.clangxx))
config.substitutions.append(("%python", config.python))
config.substitutions.append(("%resource_dir", config.resource_dir))
config.substitutions.append(("%src_root", config.torch_tidy_src_root))
config.substitutions.append(("%obj_root", config.torch_tidy_obj_root))

if config.clang_tidy_22 and os.path.exists(config.clang_tidy_22):
    config.available_features.add("clang-tidy-22")
if os.path.exists("/usr/bin/clang-tidy-14"):
    config.available_features.add("clang-tidy-14")
config.harness = os.path.join(config.torch_tidy_obj_root, "bin", "torch-tidy-harness")
config.substitutions.append(("%harness", config.harness))
if os.path.exists(config.harness):
    config.available_features.add("harness")
if os.path.exists(config.torch_clangd):
    config.available_features.add("torch-clangd")
# The runtime probe (probe/): not built in sanitizer builds, as it is loaded
# into uninstrumented programs.
config.substitutions.append(("%probe", config.probe))
config.substitutions.append(("%torch_link", config.torch_link))
if os.path.exists(config.probe) and not config.sanitize:
    config.available_features.add("probe")

# SARIF output is validated against the official schema, kept outside the
# project at ../shared/sarif (relative to the project root).
sarif_schema = os.path.normpath(os.path.join(
    config.torch_tidy_src_root, "..", "shared", "sarif", "sarif-schema-2.1.0.json"))
config.substitutions.append(("%sarif_schema", sarif_schema))
if os.path.exists(sarif_schema):
    config.available_features.add("sarif-schema")
else:
    lit_config.note("SARIF schema validation skipped: %s is absent" % sarif_schema)
import shutil
for tool in ("git", "cmake"):
    if shutil.which(tool):
        config.available_features.add(tool)
