// Package nn provides the layers of xrl's policy network, each with a
// hand-written backward pass: linear maps, activations, row gather and
// scatter-add, segment sums and softmaxes, graph attention, masked
// log-softmax and entropy, small MLPs, and an Adam optimiser.
//
// Every function is generic over float32 (used for training and acting)
// and float64 (used by the finite-difference gradient tests). Matrices
// are row-major flat slices; a "rows×cols" table of F holds row r in
// x[r*cols:(r+1)*cols].
//
// Conventions for backward functions: a function named XBackward adds
// parameter gradients into Param.Grad and writes (overwrites) the
// gradient of its input unless its documentation says it accumulates.
package nn
