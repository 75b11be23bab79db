package models

import (
	"fmt"

	"github.com/xrl-dev/xrl/graph"
)

// CNNConfig sizes an image classifier.
type CNNConfig struct {
	Batch   int // images per inference
	Image   int // input height and width in pixels
	Classes int // classifier outputs
	Seed    uint64
}

// check validates the sizes; minImage is the smallest input the network's
// strides and unpadded windows accept.
func (c CNNConfig) check(minImage int) error {
	if err := positive("batch", c.Batch, "image", c.Image, "classes", c.Classes); err != nil {
		return err
	}
	if c.Image < minImage {
		return fmt.Errorf("image must be at least %d pixels, got %d", minImage, c.Image)
	}
	return nil
}

// cnnModel adapts a CNN builder to the registry.
type cnnModel struct {
	CNNConfig
	fn func(CNNConfig) (*graph.Graph, error)
}

func (m *cnnModel) knobs() map[string]*int {
	return map[string]*int{"batch": &m.Batch, "image": &m.Image, "classes": &m.Classes}
}

func (m *cnnModel) build() (*graph.Graph, error) { return m.fn(m.CNNConfig) }

// String prints the sizes (used in the model metadata).
func (m *cnnModel) String() string { return fmt.Sprintf("%+v", m.CNNConfig) }

// registerCNN registers a CNN whose presets differ only in sizes.
func registerCNN(name, desc string, fn func(CNNConfig) (*graph.Graph, error), paper, cpu CNNConfig) {
	register(name, desc,
		func() config { return &cnnModel{paper, fn} },
		func() config { return &cnnModel{cpu, fn} })
}

// imageNet is the standard ImageNet classification size at side pixels.
func imageNet(side int) CNNConfig { return imageNetBatch(side, 1) }

// imageNetBatch is imageNet with batch images per inference.
func imageNetBatch(side, batch int) CNNConfig {
	return CNNConfig{Batch: batch, Image: side, Classes: 1000, Seed: 1}
}
