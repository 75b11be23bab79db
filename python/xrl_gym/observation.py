"""Decoding wire observations (env.proto's Observation) into numpy."""

import numpy as np

from ._proto import env_pb2
from .errors import ObservationOverflowError

_DTYPES = {
    env_pb2.DTYPE_INT32: np.dtype("<i4"),
    env_pb2.DTYPE_FLOAT32: np.dtype("<f4"),
    env_pb2.DTYPE_BOOL: np.dtype(np.uint8),
}

#: The keys of a packed observation, in env.proto's field order.
PACKED_KEYS = ("node_class", "senders", "receivers", "edge_features", "global_features",
               "node_counts", "edge_counts", "action_mask")


def tensor_to_numpy(t):
    """Returns the numpy array of an env_pb2.Tensor (bool as np.bool_)."""
    if t.dtype not in _DTYPES:
        raise ValueError(f"tensor of unknown dtype {t.dtype}")
    a = np.frombuffer(t.data, dtype=_DTYPES[t.dtype]).reshape(tuple(t.shape))
    if t.dtype == env_pb2.DTYPE_BOOL:
        a = a.astype(bool)
    return a


def packed(obs):
    """Returns a wire Observation as a dict of numpy arrays with the wire's
    shapes: the current graph and the candidates concatenated (see
    docs/python.md, "Packed observations")."""
    return {k: tensor_to_numpy(getattr(obs, k)) for k in PACKED_KEYS}


def pad(p, num_graphs, max_nodes, max_edges):
    """Returns the padded observation of packed observation p.

    Graph g (0 = current, 1 + i = candidate i) fills row g of every array;
    rows of absent candidates and entries past a graph's counts are zero.
    Raises ObservationOverflowError when a graph exceeds max_nodes or
    max_edges.
    """
    nc, ec = p["node_counts"], p["edge_counts"]
    g = len(nc)
    if g > num_graphs:
        raise ObservationOverflowError(f"{g} graphs, but the observation holds {num_graphs}")
    if nc.max() > max_nodes:
        raise ObservationOverflowError(
            f"a graph has {int(nc.max())} nodes, more than max_nodes={max_nodes}; "
            "create the environment with a larger max_nodes")
    if ec.max() > max_edges:
        raise ObservationOverflowError(
            f"a graph has {int(ec.max())} edges, more than max_edges={max_edges}; "
            "create the environment with a larger max_edges")
    node_row, node_col = _rows_cols(nc)
    edge_row, edge_col = _rows_cols(ec)
    out = {
        "node_class": np.zeros((num_graphs, max_nodes), np.int32),
        "senders": np.zeros((num_graphs, max_edges), np.int32),
        "receivers": np.zeros((num_graphs, max_edges), np.int32),
        "edge_features": np.zeros((num_graphs, max_edges, p["edge_features"].shape[1]), np.float32),
        "global_features": np.zeros((num_graphs, p["global_features"].shape[1]), np.float32),
        "num_nodes": np.zeros(num_graphs, np.int32),
        "num_edges": np.zeros(num_graphs, np.int32),
        "action_mask": p["action_mask"].astype(np.int8),
    }
    out["node_class"][node_row, node_col] = p["node_class"]
    out["senders"][edge_row, edge_col] = p["senders"]
    out["receivers"][edge_row, edge_col] = p["receivers"]
    out["edge_features"][edge_row, edge_col] = p["edge_features"]
    out["global_features"][:g] = p["global_features"]
    out["num_nodes"][:g] = nc
    out["num_edges"][:g] = ec
    return out


def _rows_cols(counts):
    """Returns, for items laid out graph by graph with these counts, each
    item's graph and its index within the graph."""
    rows = np.repeat(np.arange(len(counts), dtype=np.int64), counts)
    starts = np.repeat(np.cumsum(counts) - counts, counts)
    cols = np.arange(int(counts.sum()), dtype=np.int64) - starts
    return rows, cols


def observation_space(spaces, num_graphs, max_nodes, max_edges, num_classes, edge_dim, global_dim):
    """Returns the Dict space of padded observations."""
    i32, f32 = np.int32, np.float32
    return spaces.Dict({
        "node_class": spaces.Box(0, num_classes - 1, (num_graphs, max_nodes), i32),
        "senders": spaces.Box(0, max_nodes - 1, (num_graphs, max_edges), i32),
        "receivers": spaces.Box(0, max_nodes - 1, (num_graphs, max_edges), i32),
        "edge_features": spaces.Box(0.0, np.inf, (num_graphs, max_edges, edge_dim), f32),
        "global_features": spaces.Box(-np.inf, np.inf, (num_graphs, global_dim), f32),
        "num_nodes": spaces.Box(0, max_nodes, (num_graphs,), i32),
        "num_edges": spaces.Box(0, max_edges, (num_graphs,), i32),
        "action_mask": spaces.Box(0, 1, (num_graphs,), np.int8),
    })
