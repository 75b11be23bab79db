// Package env provides xrl's reinforcement-learning environment: a
// Gymnasium-shaped step/reset API over graph rewrites, whose observations
// are graph tensors of the current graph and of every candidate rewrite.
package env
