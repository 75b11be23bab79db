package onnx_test

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xrl-dev/xrl/graph"
	"github.com/xrl-dev/xrl/onnx"
)

// pyLegacyCases writes, into argv[1], one directory per case: a model of an
// opset below 9 exercising one legacy operator form, and a test data set
// whose expected outputs numpy computes from the operator's documented
// meaning at that opset.
const pyLegacyCases = `
import sys, os
import numpy as np
import onnx
from onnx import helper, TensorProto, numpy_helper
out = sys.argv[1]
rng = np.random.default_rng(7)
DT = {np.dtype('float32'): TensorProto.FLOAT, np.dtype('int64'): TensorProto.INT64,
      np.dtype('int32'): TensorProto.INT32, np.dtype('bool'): TensorProto.BOOL}
def f32(*shape):
    return rng.standard_normal(shape).astype(np.float32)
def case(name, opset, nodes, inputs, outputs, inits={}):
    d = os.path.join(out, name)
    os.makedirs(os.path.join(d, 'test_data_set_0'))
    vis = [helper.make_tensor_value_info(k, DT[v.dtype], v.shape) for k, v in list(inputs.items()) + list(inits.items())]
    ovis = [helper.make_tensor_value_info(k, DT[v.dtype], v.shape) for k, v in outputs.items()]
    g = helper.make_graph(nodes, name, vis, ovis, initializer=[numpy_helper.from_array(v, k) for k, v in inits.items()])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid('', opset)])
    m.ir_version = 3
    onnx.checker.check_model(m)
    onnx.save(m, os.path.join(d, 'model.onnx'))
    for i, (k, v) in enumerate(inputs.items()):
        onnx.save_tensor(numpy_helper.from_array(v, k), os.path.join(d, 'test_data_set_0', 'input_%d.pb' % i))
    for i, (k, v) in enumerate(outputs.items()):
        onnx.save_tensor(numpy_helper.from_array(v, k), os.path.join(d, 'test_data_set_0', 'output_%d.pb' % i))
N = helper.make_node

a, b = f32(2, 3, 4, 5), f32(3, 4)
case('add_axis1', 6, [N('Add', ['a', 'b'], ['y'], broadcast=1, axis=1)], {'a': a, 'b': b}, {'y': a + b[None, :, :, None]})
a, b = f32(2, 3, 4), f32(2)
case('mul_axis0_opset1', 1, [N('Mul', ['a', 'b'], ['y'], broadcast=1, axis=0, consumed_inputs=[0, 0])],
     {'a': a, 'b': b}, {'y': a * b[:, None, None]})
a, b = f32(2, 3, 4), f32(3, 1)
case('div_axis_size1', 6, [N('Div', ['a', 'b'], ['y'], broadcast=1, axis=1)], {'a': a, 'b': b}, {'y': a / b[None, :, :]})
a, b = f32(2, 3), f32(3)
case('sub_suffix', 6, [N('Sub', ['a', 'b'], ['y'], broadcast=1)], {'a': a, 'b': b}, {'y': a - b})
a, b = np.abs(f32(2, 3)) + 0.5, f32(2, 3)
case('pow_same', 6, [N('Pow', ['a', 'b'], ['y'])], {'a': a, 'b': b}, {'y': a ** b})
a, b = rng.integers(0, 3, (2, 3)).astype(np.int64), rng.integers(0, 3, (2,)).astype(np.int64)
case('equal_axis0', 6, [N('Equal', ['a', 'b'], ['y'], broadcast=1, axis=0)], {'a': a, 'b': b}, {'y': a == b[:, None]})
x = f32(2, 3, 4)
case('reshape_attr', 4, [N('Reshape', ['x'], ['y'], shape=[4, 0, -1], consumed_inputs=[0])], {'x': x},
     {'y': x.reshape(4, 3, 2)})
x = f32(2, 3) * 3
case('cast_string_to', 5, [N('Cast', ['x'], ['y'], to='INT32')], {'x': x}, {'y': x.astype(np.int32)})
x = f32(2, 3)
case('pad_paddings', 1, [N('Pad', ['x'], ['y'], paddings=[1, 0, 0, 2], value=1.5)], {'x': x},
     {'y': np.pad(x, ((1, 0), (0, 2)), constant_values=1.5)})
x = f32(1, 2, 5)
case('pad2_reflect', 2, [N('Pad', ['x'], ['y'], pads=[0, 0, 2, 0, 0, 1], mode='reflect')], {'x': x},
     {'y': np.pad(x, ((0, 0), (0, 0), (2, 1)), mode='reflect')})
a, b = f32(2, 3), f32(2, 2)
case('concat_default_axis', 3, [N('Concat', ['a', 'b'], ['y'])], {'a': a, 'b': b}, {'y': np.concatenate([a, b], 1)})
x = f32(4, 6)
case('split_opset1', 1, [N('Split', ['x'], ['p', 'q'], axis=1, split=[2, 4])], {'x': x}, {'p': x[:, :2], 'q': x[:, 2:]})
x, s, bb, mu, var = f32(2, 3, 4, 5), f32(3), f32(3), f32(3), np.abs(f32(3)) + 0.1
bn = (x - mu[:, None, None]) / np.sqrt(var[:, None, None] + 1e-3) * s[:, None, None] + bb[:, None, None]
case('batchnorm_is_test', 6, [N('BatchNormalization', ['x', 's', 'b', 'm', 'v'], ['y'], is_test=1, epsilon=1e-3, spatial=1)],
     {'x': x}, {'y': bn.astype(np.float32)}, {'s': s, 'b': bb, 'm': mu, 'v': var})
case('batchnorm_consumed', 5, [N('BatchNormalization', ['x', 's', 'b', 'm', 'v'], ['y'], is_test=1, epsilon=1e-3,
     consumed_inputs=[0, 0, 0, 1, 1])], {'x': x}, {'y': bn.astype(np.float32)}, {'s': s, 'b': bb, 'm': mu, 'v': var})
case('batchnorm_opset7', 7, [N('BatchNormalization', ['x', 's', 'b', 'm', 'v'], ['y'], epsilon=1e-3)],
     {'x': x}, {'y': bn.astype(np.float32)}, {'s': s, 'b': bb, 'm': mu, 'v': var})
x = f32(3, 4)
case('dropout_is_test', 6, [N('Dropout', ['x'], ['y'], is_test=1, ratio=0.3)], {'x': x}, {'y': x})
case('clip_consumed', 5, [N('Clip', ['x'], ['y'], min=-0.5, max=0.5, consumed_inputs=[0])], {'x': x}, {'y': np.clip(x, -0.5, 0.5)})
case('clip_max_only', 6, [N('Clip', ['x'], ['y'], max=0.25)], {'x': x}, {'y': np.minimum(x, 0.25)})
a, w, c = f32(2, 3), f32(4, 3), f32(4)
case('gemm_broadcast', 6, [N('Gemm', ['a', 'w', 'c'], ['y'], transB=1, broadcast=1, alpha=0.5, beta=2.0)],
     {'a': a, 'w': w, 'c': c}, {'y': 0.5 * a @ w.T + 2 * c})
a, w, c = f32(3, 2), f32(3, 4), f32(2, 4)
case('gemm_opset1', 1, [N('Gemm', ['a', 'w', 'c'], ['y'], transA=1)], {'a': a, 'w': w, 'c': c}, {'y': a.T @ w + c})
a, b, c = f32(2, 3), f32(2, 3), f32(2, 3)
case('max_min', 6, [N('Max', ['a', 'b', 'c'], ['p']), N('Min', ['a', 'b'], ['q'])], {'a': a, 'b': b, 'c': c},
     {'p': np.maximum(np.maximum(a, b), c), 'q': np.minimum(a, b)})
x = f32(2, 5)
sig = 1 / (1 + np.exp(-np.tanh(x)))
case('unary_consumed', 1, [N('Tanh', ['x'], ['t'], consumed_inputs=[0]), N('Sigmoid', ['t'], ['s'], consumed_inputs=[0]),
     N('Sqrt', ['s'], ['q'], consumed_inputs=[0]), N('Log', ['q'], ['l'], consumed_inputs=[0]),
     N('Exp', ['l'], ['e'], consumed_inputs=[0]), N('Relu', ['x'], ['r'], consumed_inputs=[0]),
     N('LeakyRelu', ['x'], ['k'], alpha=0.2, consumed_inputs=[0]),
     N('HardSigmoid', ['x'], ['h'], alpha=0.3, beta=0.4, consumed_inputs=[0])], {'x': x},
     {'e': np.sqrt(sig), 'r': np.maximum(x, 0), 'k': np.where(x >= 0, x, 0.2 * x),
      'h': np.clip(0.3 * x + 0.4, 0, 1)})
x = f32(2, 3, 4)
e = np.exp(x.reshape(2, 12)); sm = (e / e.sum(1, keepdims=True)).reshape(2, 3, 4)
case('softmax_flattens', 6, [N('Softmax', ['x'], ['y'], axis=1)], {'x': x}, {'y': sm})
x = f32(1, 1, 5)
avg = np.array([(x[0, 0, 0] + x[0, 0, 1]) / 2] + [x[0, 0, i - 1:i + 2].mean() for i in range(1, 4)] +
               [(x[0, 0, 3] + x[0, 0, 4]) / 2], dtype=np.float32).reshape(1, 1, 5)
case('avgpool_excludes_pad', 6, [N('AveragePool', ['x'], ['y'], kernel_shape=[3], pads=[1, 1])], {'x': x}, {'y': avg})
mx = np.array([x[0, 0, max(0, i - 1):i + 2].max() for i in range(5)], dtype=np.float32).reshape(1, 1, 5)
case('maxpool_opset7', 7, [N('MaxPool', ['x'], ['y'], kernel_shape=[3], pads=[1, 1])], {'x': x}, {'y': mx})
x, idx, x2 = f32(4, 3, 2), np.array([[0, 3], [1, 1]], dtype=np.int64), f32(2, 5)
case('tensor_ops_opset1', 1, [N('Gather', ['x', 'i'], ['g']), N('Transpose', ['g'], ['t'], perm=[3, 0, 2, 1]),
     N('Flatten', ['t'], ['f'], axis=2), N('Slice', ['x'], ['s'], starts=[1, 0], ends=[3, 2], axes=[0, 2]),
     N('Unsqueeze', ['s'], ['u'], axes=[0]), N('Squeeze', ['u'], ['q'], axes=[0]),
     N('ReduceSum', ['x'], ['r'], axes=[1], keepdims=0), N('ReduceMean', ['x'], ['rm'], axes=[0, 2]),
     N('ReduceMax', ['x'], ['rx'], keepdims=0), N('Identity', ['r'], ['id']),
     N('Constant', [], ['k'], value=numpy_helper.from_array(np.array([2, -1], dtype=np.float32))),
     N('Add', ['x', 'k'], ['ak'], broadcast=1), N('MatMul', ['x', 'x2'], ['mm'])],
     {'x': x, 'i': idx, 'x2': x2},
     {'f': np.transpose(x[idx], (3, 0, 2, 1)).reshape(4, 6), 'q': x[1:3, :, 0:2], 'rm': x.mean((0, 2), keepdims=True),
      'rx': np.array(x.max(), dtype=np.float32), 'id': x.sum(1), 'ak': x + np.array([2, -1], dtype=np.float32), 'mm': x @ x2})
`

// legacyCase says how a generated case must import: the IR ops in order.
var legacyCases = []struct {
	name string
	ops  string
}{
	{"add_axis1", "Unsqueeze Add"},
	{"mul_axis0_opset1", "Unsqueeze Mul"},
	{"div_axis_size1", "Div"},
	{"sub_suffix", "Sub"},
	{"pow_same", "Pow"},
	{"equal_axis0", "Unsqueeze Equal"},
	{"reshape_attr", "Reshape"},
	{"cast_string_to", "Cast"},
	{"pad_paddings", "Pad"},
	{"pad2_reflect", "Pad"},
	{"concat_default_axis", "Concat"},
	{"split_opset1", "Split"},
	{"batchnorm_is_test", "BatchNormalization"},
	{"batchnorm_consumed", "BatchNormalization"},
	{"batchnorm_opset7", "BatchNormalization"},
	{"dropout_is_test", "Dropout"},
	{"clip_consumed", "Clip"},
	{"clip_max_only", "Clip"},
	{"gemm_broadcast", "Gemm"},
	{"gemm_opset1", "Gemm"},
	{"max_min", "Max Min"},
	{"unary_consumed", "Tanh Sigmoid Sqrt Log Exp Relu LeakyRelu HardSigmoid"},
	{"softmax_flattens", "Flatten Softmax Reshape"},
	{"avgpool_excludes_pad", "AveragePool"},
	{"maxpool_opset7", "MaxPool"},
	{"tensor_ops_opset1", "Gather Transpose Flatten Slice Unsqueeze Squeeze ReduceSum ReduceMean ReduceMax Identity Constant Add MatMul"},
}

// TestLegacyFormsExec imports models of opsets 1 to 8 that use each legacy
// operator form, checks the IR ops they become, and runs them (and their
// export, raised to opset 9) against numpy's results.
func TestLegacyFormsExec(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command("/usr/bin/python3", "-c", pyLegacyCases, dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("python: %v\n%s", err, stderr.String())
	}
	for _, c := range legacyCases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, c.name, "model.onnx")
			m, err := onnx.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if got := opList(m.Graph); got != c.ops {
				t.Fatalf("imported as %q, want %q", got, c.ops)
			}
			enc, err := onnx.Encode(m)
			if err != nil {
				t.Fatal(err)
			}
			m2, err := onnx.Decode(enc, onnx.DecodeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if m2.Opset("") != 9 || m.Graph.CanonicalHash() != m2.Graph.CanonicalHash() {
				t.Errorf("export: opset %d (want 9), hash changed %v", m2.Opset(""), m.Graph.CanonicalHash() != m2.Graph.CanonicalHash())
			}
			for _, mm := range []*graph.Model{m, m2} {
				if err := runDataSet(mm.Graph, filepath.Join(dir, c.name, "test_data_set_0")); err != nil {
					t.Errorf("opset %d: %v", mm.Opset(""), err)
				}
			}
		})
	}
}

// opList returns g's ops in node order, opaque ones prefixed with "!".
func opList(g *graph.Graph) string {
	var ops []string
	for _, n := range g.Nodes {
		op := n.Op
		if n.IsOpaque() {
			op = "!" + op
		}
		ops = append(ops, op)
	}
	return strings.Join(ops, " ")
}
