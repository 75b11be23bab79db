package ort

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	ortgo "github.com/yalue/onnxruntime_go"
)

// LibraryEnv names the environment variable that overrides the library path.
const LibraryEnv = "XRL_ORT_LIB"

const (
	libName   = "libonnxruntime.so.1"
	libSubdir = "third_party/onnxruntime"
)

var (
	initOnce sync.Once
	initErr  error
	libPath  string
)

// FindLibrary returns the path of ONNX Runtime's shared library, or an
// error that lists where it looked and how to install it.
func FindLibrary() (string, error) {
	if p := os.Getenv(LibraryEnv); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%s=%s: %w", LibraryEnv, p, err)
		}
		return p, nil
	}
	var tried []string
	try := func(dir string) (string, bool) {
		p := filepath.Join(dir, libSubdir, libName)
		tried = append(tried, p)
		_, err := os.Stat(p)
		return p, err == nil
	}
	if exe, err := os.Executable(); err == nil {
		if exe, err = filepath.EvalSymlinks(exe); err == nil {
			if p, ok := try(filepath.Dir(filepath.Dir(exe))); ok {
				return p, nil
			}
		}
	}
	if wd, err := os.Getwd(); err == nil {
		for dir := wd; ; dir = filepath.Dir(dir) {
			if p, ok := try(dir); ok {
				return p, nil
			}
			if filepath.Dir(dir) == dir {
				break
			}
		}
	}
	return "", fmt.Errorf("ONNX Runtime library %s not found (looked in %s); run scripts/setup, or set %s to its path",
		libName, strings.Join(tried, ", "), LibraryEnv)
}

// initialize loads the library and creates ONNX Runtime's environment once
// per process.
func initialize() error {
	initOnce.Do(func() {
		p, err := FindLibrary()
		if err != nil {
			initErr = err
			return
		}
		ortgo.SetSharedLibraryPath(p)
		// Fatal only: a failing run's error comes back with the call, and
		// checking a model at sizes it may not take (the original at a
		// sequence longer than its position table) must not print ONNX
		// Runtime's own error lines.
		if err := ortgo.InitializeEnvironment(ortgo.WithLogLevelFatal()); err != nil {
			initErr = fmt.Errorf("loading ONNX Runtime from %s: %w", p, err)
			return
		}
		libPath = p
	})
	return initErr
}

// Available reports whether ONNX Runtime can be loaded; the error says why not.
func Available() error { return initialize() }

// Version returns the loaded ONNX Runtime's version string.
func Version() (string, error) {
	if err := initialize(); err != nil {
		return "", err
	}
	return ortgo.GetVersion(), nil
}

var errClosed = errors.New("ort: session is closed")
