"""Writes the .npz input sets of inputs' tests with NumPy, and a model
that differs from onnx_gather's only on large data (run once; the files
are committed):

  cd inputs/testdata && /usr/bin/python3 make_testdata.py

  npz/gather_named.npz       data (5x4x3x2 float32) and indices (int64 [3]),
                             members named after onnx_gather's inputs.
  npz/gather_positional.npz  the same arrays, compressed, unnamed (arr_0,
                             arr_1): data in Fortran order, indices
                             big-endian, to exercise the reader.
  npz_vad/vad_16k.npz        x (1x512 float32), sr = 16000 (int64 scalar),
  npz_vad/vad_8k.npz         x (1x256 float32), sr = 8000: input sets of
                             testdata/controlflow/vad_if.onnx at two shapes.
  onnx_gather/big_shift.onnx the Gather of model.onnx (opset 13, same
                             inputs), of data + 1 where data > 1.5: random
                             inputs in [-1, 1) never tell the two apart, the
                             test data set does.
"""

import numpy as np
import onnx
from onnx import TensorProto, helper

rng = np.random.default_rng(7)
data = rng.standard_normal((5, 4, 3, 2)).astype(np.float32)
indices = np.array([4, 0, 3], dtype=np.int64)
np.savez("npz/gather_named.npz", data=data, indices=indices)
np.savez_compressed("npz/gather_positional.npz", np.asfortranarray(data), indices.astype(">i8"))
np.savez("npz_vad/vad_16k.npz", x=rng.standard_normal((1, 512)).astype(np.float32), sr=np.array(16000, dtype=np.int64))
np.savez("npz_vad/vad_8k.npz", x=rng.standard_normal((1, 256)).astype(np.float32), sr=np.array(8000, dtype=np.int64))

f32, i64 = TensorProto.FLOAT, TensorProto.INT64
graph = helper.make_graph(
    [
        helper.make_node("Greater", ["data", "limit"], ["big"]),
        helper.make_node("Add", ["data", "one"], ["shifted"]),
        helper.make_node("Where", ["big", "shifted", "data"], ["picked"]),
        helper.make_node("Gather", ["picked", "indices"], ["y"]),
    ],
    "big_shift",
    [helper.make_tensor_value_info("data", f32, [5, 4, 3, 2]), helper.make_tensor_value_info("indices", i64, [3])],
    [helper.make_tensor_value_info("y", f32, [3, 4, 3, 2])],
    [helper.make_tensor("limit", f32, [], [1.5]), helper.make_tensor("one", f32, [], [1.0])],
)
onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8), "onnx_gather/big_shift.onnx")
