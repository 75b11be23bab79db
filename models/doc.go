// Package models provides the model zoo: builders that emit real
// ONNX-operator graphs (graph.Graph) for the networks xrl optimises.
//
// Twelve architectures are built node by node with graph.Builder from the
// operators of the op-schema table: BERT, ViT, a mini DALL-E decoder, a
// Transformer-Transducer, ResNet-18, ResNet-50, ResNeXt-50 (32x4d),
// Inception-v3, SqueezeNet 1.1, MobileNetV2, NASNet-A (Mobile) and the
// NAS recurrent cell. Each builder takes a config struct holding every
// size; each model has two presets, "paper" (the sizes of the published
// network or of the TASO / X-RLflow benchmark) and "cpu" (the same
// structure, with at least two repeated blocks of each kind, sized so one
// inference takes about 8 ms in ONNX Runtime on two cores: 0.5-3 GFLOP).
//
// Weights are float32 constants drawn from a seeded math/rand/v2 source
// with He or Xavier scales. Batch-normalisation statistics are set from a
// build-time estimate of the mean square of each BatchNormalization input,
// so that — like in a trained network — every BatchNormalization roughly
// standardises its input and activations stay finite and unsaturated.
//
// List and Build form the registry used by the command line; Params
// counts the parameters of any graph (graph.FLOPs its arithmetic).
package models
