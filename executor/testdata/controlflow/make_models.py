"""Writes the control-flow models of the executor's tests with onnx.helper
(opset 16):

  loop_scan.onnx: Loop(M=4, cond absent, y=x) whose body adds the outer x to
      y and emits 2*y as a scan output: y_final = 5x, scan[i] = 2(i+2)x.
  scan_reverse.onnx: Scan over axis 1 of X (2x4), read in reverse, with a
      running sum as state; the per-step sums are stacked along axis 1.

Usage: /usr/bin/python3 make_models.py (writes next to this script).
"""
import os

import onnx
from onnx import TensorProto, helper

here = os.path.dirname(os.path.abspath(__file__))


def loop_scan():
    body = helper.make_graph(
        [
            helper.make_node("Identity", ["cond_in"], ["cond_out"]),
            helper.make_node("Add", ["y_in", "x"], ["y_out"]),
            helper.make_node("Mul", ["y_out", "two"], ["s_out"]),
        ],
        "body",
        [
            helper.make_tensor_value_info("i", TensorProto.INT64, []),
            helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
            helper.make_tensor_value_info("y_in", TensorProto.FLOAT, [2, 3]),
        ],
        [
            helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
            helper.make_tensor_value_info("y_out", TensorProto.FLOAT, [2, 3]),
            helper.make_tensor_value_info("s_out", TensorProto.FLOAT, [2, 3]),
        ],
    )
    g = helper.make_graph(
        [helper.make_node("Loop", ["M", "", "x"], ["y", "s"], body=body)],
        "loop_scan",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        [
            helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3]),
            helper.make_tensor_value_info("s", TensorProto.FLOAT, [4, 2, 3]),
        ],
        [helper.make_tensor("M", TensorProto.INT64, [], [4]), helper.make_tensor("two", TensorProto.FLOAT, [], [2.0])],
    )
    return g


def scan_reverse():
    body = helper.make_graph(
        [helper.make_node("Add", ["acc_in", "x_t"], ["acc_out"]), helper.make_node("Identity", ["acc_out"], ["step"])],
        "body",
        [
            helper.make_tensor_value_info("acc_in", TensorProto.FLOAT, [2]),
            helper.make_tensor_value_info("x_t", TensorProto.FLOAT, [2]),
        ],
        [
            helper.make_tensor_value_info("acc_out", TensorProto.FLOAT, [2]),
            helper.make_tensor_value_info("step", TensorProto.FLOAT, [2]),
        ],
    )
    node = helper.make_node("Scan", ["acc", "X"], ["acc_final", "steps"], body=body, num_scan_inputs=1,
                            scan_input_axes=[1], scan_input_directions=[1], scan_output_axes=[1])
    return helper.make_graph(
        [node],
        "scan_reverse",
        [helper.make_tensor_value_info("acc", TensorProto.FLOAT, [2]), helper.make_tensor_value_info("X", TensorProto.FLOAT, [2, 4])],
        [helper.make_tensor_value_info("acc_final", TensorProto.FLOAT, [2]), helper.make_tensor_value_info("steps", TensorProto.FLOAT, [2, 4])],
    )


def main():
    for name, g in (("loop_scan", loop_scan()), ("scan_reverse", scan_reverse())):
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 16)], producer_name="make_models.py")
        m.ir_version = 8
        onnx.checker.check_model(m, full_check=True)
        onnx.save(m, os.path.join(here, name + ".onnx"))


if __name__ == "__main__":
    main()
