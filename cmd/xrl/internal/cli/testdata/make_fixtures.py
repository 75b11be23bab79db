# Writes the ONNX files the CLI tests use into the directory given as argv[1].
# Run by cli_test.go with Debian's python3-onnx.
import os, sys
import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto as TP

out = sys.argv[1]
rng = np.random.default_rng(7)

def save(name, graph, opset=13, check=True):
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    if check:
        onnx.checker.check_model(m)
    onnx.save(m, os.path.join(out, name))

def w(name, *shape):
    return numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32), name)

vi = helper.make_tensor_value_info

# A small valid model with a symbolic batch dimension.
save("mlp.onnx", helper.make_graph(
    [helper.make_node("MatMul", ["x", "W"], ["h"], name="mm"),
     helper.make_node("Add", ["h", "B"], ["h2"], name="add"),
     helper.make_node("Relu", ["h2"], ["y"], name="relu")],
    "mlp", [vi("x", TP.FLOAT, ["batch", 16])], [vi("y", TP.FLOAT, ["batch", 8])],
    [w("W", 16, 8), w("B", 8)]))

# The same model with one weight perturbed.
g = helper.make_graph(
    [helper.make_node("MatMul", ["x", "W"], ["h"], name="mm"),
     helper.make_node("Add", ["h", "B"], ["h2"], name="add"),
     helper.make_node("Relu", ["h2"], ["y"], name="relu")],
    "mlp", [vi("x", TP.FLOAT, ["batch", 16])], [vi("y", TP.FLOAT, ["batch", 8])],
    [w("W", 16, 8), w("B", 8)])
save("mlp_other.onnx", g)

# A cycle: a = Relu(b), b = Relu(a).
save("cyclic.onnx", helper.make_graph(
    [helper.make_node("Add", ["x", "b"], ["a"], name="first"),
     helper.make_node("Relu", ["a"], ["b"], name="second")],
    "cyclic", [vi("x", TP.FLOAT, [4])], [vi("b", TP.FLOAT, [4])]), check=False)

# A node reading a name nothing produces.
save("dangling.onnx", helper.make_graph(
    [helper.make_node("Add", ["x", "ghost"], ["y"], name="adder")],
    "dangling", [vi("x", TP.FLOAT, [4])], [vi("y", TP.FLOAT, [4])]), check=False)

# Recorded intermediate shape disagrees with what the ops compute.
save("mismatch.onnx", helper.make_graph(
    [helper.make_node("MatMul", ["x", "W"], ["h"], name="mm"),
     helper.make_node("Relu", ["h"], ["y"], name="relu")],
    "mismatch", [vi("x", TP.FLOAT, [2, 16])], [vi("y", TP.FLOAT, [2, 8])],
    [w("W", 16, 8)], value_info=[vi("h", TP.FLOAT, [2, 9])]), check=False)

# A non-leading symbolic dimension.
save("unbound.onnx", helper.make_graph(
    [helper.make_node("Relu", ["x"], ["y"], name="relu")],
    "unbound", [vi("x", TP.FLOAT, [1, 3, "height", 8])], [vi("y", TP.FLOAT, [1, 3, "height", 8])]))

# An operator xrl keeps opaque (no Go kernel), with shapes from value_info.
save("opaque.onnx", helper.make_graph(
    [helper.make_node("Relu", ["x"], ["r"], name="relu"),
     helper.make_node("LpNormalization", ["r"], ["y"], name="soft")],
    "opaque", [vi("x", TP.FLOAT, [2, 4])], [vi("y", TP.FLOAT, [2, 4])],
    value_info=[vi("r", TP.FLOAT, [2, 4])]))

# The small MLP with its weight stored transposed and a Transpose of it in
# the graph: folding changes it, so optimize always times its result
# against the original (a result that is the original's graph is not
# timed).
save("mlp_folds.onnx", helper.make_graph(
    [helper.make_node("Transpose", ["Wt"], ["W"], name="wt", perm=[1, 0]),
     helper.make_node("MatMul", ["x", "W"], ["h"], name="mm"),
     helper.make_node("Add", ["h", "B"], ["h2"], name="add"),
     helper.make_node("Relu", ["h2"], ["y"], name="relu")],
    "mlp_folds", [vi("x", TP.FLOAT, ["batch", 16])], [vi("y", TP.FLOAT, ["batch", 8])],
    [w("Wt", 8, 16), w("B", 8)]))
