"""Minimal safetensors writer and reader for the reference scripts.

Written independently of the C++ reader in src/io, so that a bug in one does not hide in the other.
"""
import json
import struct

import numpy as np

_DTYPES = {
    np.dtype("float32"): "F32",
    np.dtype("float64"): "F64",
    np.dtype("int32"): "I32",
    np.dtype("int64"): "I64",
    np.dtype("uint8"): "U8",
    np.dtype("bool"): "BOOL",
}
_NUMPY = {name: dtype for dtype, name in _DTYPES.items()}


def save(path, tensors, metadata=None):
    """Writes {name: numpy array} (little-endian) and string metadata to path."""
    header = {}
    if metadata:
        header["__metadata__"] = {k: str(v) for k, v in metadata.items()}
    offset = 0
    blobs = []
    for name, array in tensors.items():
        array = np.ascontiguousarray(array)
        blob = array.astype(array.dtype.newbyteorder("<")).tobytes()
        header[name] = {
            "dtype": _DTYPES[array.dtype],
            "shape": list(array.shape),
            "data_offsets": [offset, offset + len(blob)],
        }
        offset += len(blob)
        blobs.append(blob)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for blob in blobs:
            f.write(blob)


def load(path):
    """Returns ({name: numpy array}, metadata dict)."""
    with open(path, "rb") as f:
        raw = f.read()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8 : 8 + n])
    data = raw[8 + n :]
    metadata = header.pop("__metadata__", {})
    tensors = {}
    for name, info in header.items():
        begin, end = info["data_offsets"]
        dtype = _NUMPY[info["dtype"]].newbyteorder("<")
        tensors[name] = np.frombuffer(data[begin:end], dtype=dtype).reshape(info["shape"])
    return tensors, metadata
