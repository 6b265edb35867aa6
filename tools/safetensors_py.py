"""Minimal safetensors writer and reader for the reference scripts.

Written independently of the C++ reader in src/io, so that a bug in one does not hide in the other.
"""
import json
import struct

import numpy as np

_DTYPES = {
    np.dtype("float16"): "F16",
    np.dtype("float32"): "F32",
    np.dtype("float64"): "F64",
    np.dtype("int32"): "I32",
    np.dtype("int64"): "I64",
    np.dtype("uint8"): "U8",
    np.dtype("bool"): "BOOL",
}
_NUMPY = {name: dtype for dtype, name in _DTYPES.items()}


class BF16:
    """A bfloat16 tensor for save(), kept as its uint16 bit patterns (numpy has no bfloat16).

    Built from float values that bfloat16 represents exactly (the low 16 bits of each float32 are
    zero); anything else raises ValueError rather than rounding silently."""

    def __init__(self, values):
        bits = np.ascontiguousarray(values, dtype=np.float32).view(np.uint32)
        if np.any(bits & 0xFFFF):
            raise ValueError("values are not exactly representable in bfloat16")
        self.bits = (bits >> 16).astype(np.uint16)
        self.shape = self.bits.shape


def dtype_of(array):
    """The safetensors dtype name save() writes for a numpy array or a BF16."""
    return "BF16" if isinstance(array, BF16) else _DTYPES[np.asarray(array).dtype]


def _blob(array):
    """(safetensors dtype name, little-endian bytes, shape) of a numpy array or a BF16."""
    if isinstance(array, BF16):
        return "BF16", array.bits.astype("<u2").tobytes(), array.shape
    shape = np.shape(array)  # before ascontiguousarray, which turns a scalar into shape [1]
    array = np.ascontiguousarray(array)
    return _DTYPES[array.dtype], array.astype(array.dtype.newbyteorder("<")).tobytes(), shape


def save(path, tensors, metadata=None):
    """Writes {name: numpy array or BF16} (little-endian, in the dict's order) and string metadata
    to path."""
    header = {}
    if metadata:
        header["__metadata__"] = {k: str(v) for k, v in metadata.items()}
    offset = 0
    blobs = []
    for name, array in tensors.items():
        dtype, blob, shape = _blob(array)
        header[name] = {
            "dtype": dtype,
            "shape": list(shape),
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
    """Returns ({name: numpy array}, metadata dict). BF16 tensors come back as float32 (exact)."""
    with open(path, "rb") as f:
        raw = f.read()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8 : 8 + n])
    data = raw[8 + n :]
    metadata = header.pop("__metadata__", {})
    tensors = {}
    for name, info in header.items():
        begin, end = info["data_offsets"]
        if info["dtype"] == "BF16":
            bits = np.frombuffer(data[begin:end], dtype="<u2").astype(np.uint32) << 16
            tensors[name] = bits.view(np.float32).reshape(info["shape"])
            continue
        dtype = _NUMPY[info["dtype"]].newbyteorder("<")
        tensors[name] = np.frombuffer(data[begin:end], dtype=dtype).reshape(info["shape"])
    return tensors, metadata
