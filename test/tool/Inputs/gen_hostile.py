"""gen_hostile.py KIND OUT: writes a hostile input for torch-tidy's tests.
KIND: random (bytes from a fixed seed), functions N, lambdas N,
missing-db N (compile_commands.json: N entries, all but two missing)."""
import json, os, random, sys

kind, out = sys.argv[1], sys.argv[2]
if kind == "random":
    rng = random.Random(1234)
    open(out, "wb").write(bytes(rng.randrange(256) for _ in range(4096)))
elif kind == "functions":
    n = int(sys.argv[3])
    with open(out, "w") as f:
        f.write("#include <torch/torch.h>\n")
        for i in range(n):
            f.write("torch::Tensor f%d(torch::Tensor x) { return x + %d; }\n" % (i, i))
        f.write("void last(torch::Tensor x, torch::Device d) {\n  x.to(d);\n}\n")
elif kind == "lambdas":
    n = int(sys.argv[3])
    with open(out, "w") as f:
        f.write("#include <torch/torch.h>\n")
        f.write("void nested(torch::Tensor x, torch::Device d) {\n  auto r = ")
        f.write("[&]() { return " * n + "x.to(d)" + "; }()" * n + ";\n")
        f.write("  x.to(d);\n}\n")
elif kind == "missing-db":
    n = int(sys.argv[3])
    d = os.path.dirname(os.path.abspath(out))
    files = ["missing%04d.cpp" % i for i in range(n - 2)] + ["ok1.cpp", "ok2.cpp"]
    for name in files[-2:]:
        open(os.path.join(d, name), "w").write("int %s() { return 0; }\n" % name[:3])
    json.dump([{"directory": d, "file": name, "command": "clang++ -c " + name}
               for name in files], open(out, "w"), indent=1)
