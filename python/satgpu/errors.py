"""satgpu's exceptions: one class per kind of `satgpu::Error`, all under `satgpu.Error`, each
carrying the Rust library's message.

Kinds of the same family share a base, so that one `except` catches the family:

    Error
    ├── InvalidPolygonError       (ValueError)  a shape failed validation; names the shape
    ├── UnknownShapeError         (ValueError)  a body names a shape that does not exist
    ├── InvalidTransformError     (ValueError)  a transform cannot be used; names the body
    │   ├── NonFiniteTransformError               NaN or infinite
    │   ├── TransformOutOfRangeError              beyond +-1e37 per coordinate
    │   └── RotationNotUnitError                  (cos, sin) not a unit vector
    ├── CountError                (ValueError)  an array's length is not the number of bodies
    │   ├── TransformCountError
    │   └── FilterCountError
    ├── InvalidSettingError       (ValueError)  an option out of its range
    ├── WktError                  (ValueError)  not one WKT POLYGON: the column where reading stopped
    ├── InvalidCrowdError         (ValueError)  a crowd's area, exit, agent or parameter: names it
    ├── SceneError                              a scene file cannot be read or written
    │   ├── SceneFileError        (OSError)       the file itself: missing, unreadable
    │   ├── SceneJsonError        (ValueError)    not JSON, or not a scene: line and column
    │   ├── MissingPolygonsError  (ValueError)    no "polygons" array
    │   └── InvalidWallsError     (ValueError)    "walls" that are no WKT POLYGON or not valid rings
    ├── NoAdapterError                          no adapter satgpu can use
    │   └── UnsuitableAdapterError                the one asked for cannot run satgpu
    ├── TooLargeError                           the work does not fit
    │   ├── BufferTooLargeError                   beyond the adapter's buffer size
    │   ├── NotEnoughMemoryError                  beyond the memory available
    │   └── HostMemoryError                       the result could not be allocated
    └── DeviceError                             the device failed
        ├── DeviceFailureError                    it reported an error; the world stays usable
        ├── DeviceLostError                       it is gone: open a new Gpu
        └── DeviceTimeoutError    (TimeoutError)  it did not finish in time
    TileError                                   a tile of satgpu.ray.TiledWorld failed past its
                                                retries: names the tile and the cause

Errors in the input are also `ValueError`s (and file errors `OSError`s), as Python code expects.
Bad arrays (wrong shape, dtype or layout) are plain `ValueError`s naming the argument."""

from __future__ import annotations

__all__ = [
    "BufferTooLargeError",
    "CountError",
    "DeviceError",
    "DeviceFailureError",
    "DeviceLostError",
    "DeviceTimeoutError",
    "Error",
    "FilterCountError",
    "HostMemoryError",
    "InvalidCrowdError",
    "InvalidPolygonError",
    "InvalidSettingError",
    "InvalidTransformError",
    "InvalidWallsError",
    "MissingPolygonsError",
    "NoAdapterError",
    "NonFiniteTransformError",
    "NotEnoughMemoryError",
    "RotationNotUnitError",
    "SceneError",
    "SceneFileError",
    "SceneJsonError",
    "TileError",
    "TooLargeError",
    "TransformCountError",
    "TransformOutOfRangeError",
    "UnknownShapeError",
    "UnsuitableAdapterError",
    "WktError",
]


class Error(Exception):
    """Every error satgpu raises."""


class InvalidPolygonError(Error, ValueError):
    """A shape failed validation (too few or too many vertices, not convex, not finite, out of
    range, too small, a bad radius); the message names the shape."""


class WktError(Error, ValueError):
    """Text that is not one WKT `POLYGON` (a walkable area for `satgpu.walls`); the message names
    the column where reading stopped."""


class InvalidCrowdError(Error, ValueError):
    """A crowd (`satgpu.Crowd`) refused: an area ring that crosses itself, an exit not inside the
    area, an agent outside it, at a wall, overlapping another or with a parameter out of range,
    a bad `dt`; the message names which."""


class UnknownShapeError(Error, ValueError):
    """A body refers to a shape that does not exist."""


class InvalidTransformError(Error, ValueError):
    """A transform cannot be used; the message names the body."""


class NonFiniteTransformError(InvalidTransformError):
    """A transform has a NaN or infinite component."""


class TransformOutOfRangeError(InvalidTransformError):
    """A translation is finite but beyond the range the GPU computes in (+-1e37)."""


class RotationNotUnitError(InvalidTransformError):
    """A rotation given as (cos, sin) is not a unit vector: it would scale the body as well."""


class CountError(Error, ValueError):
    """An array's length does not match the number of bodies."""


class TransformCountError(CountError):
    """As many transforms as bodies are needed."""


class FilterCountError(CountError):
    """As many filters as bodies are needed."""


class InvalidSettingError(Error, ValueError):
    """An option is out of its range."""


class SceneError(Error):
    """A scene file cannot be read or written."""


class SceneFileError(SceneError, OSError):
    """The file cannot be opened, read or written; the message names it."""


class SceneJsonError(SceneError, ValueError):
    """The file is not JSON, or not a scene; the message gives the line and column."""


class MissingPolygonsError(SceneError, ValueError):
    """The file has no top-level "polygons" array."""


class InvalidWallsError(SceneError, ValueError):
    """A scene file's "walls" are no WKT POLYGON or have a ring that is not a valid loop; the
    message names the file, then the column or the ring."""


class NoAdapterError(Error):
    """No adapter satgpu can use was found; the message says how to install one."""


class UnsuitableAdapterError(NoAdapterError):
    """The adapter asked for cannot run satgpu (no compute shaders, limits too small)."""


class TooLargeError(Error):
    """The work does not fit the device or the memory available."""


class BufferTooLargeError(TooLargeError):
    """A buffer would exceed the adapter's largest storage buffer."""


class NotEnoughMemoryError(TooLargeError):
    """The work needs more memory than is available; checked before anything is allocated."""


class HostMemoryError(TooLargeError):
    """The result could not be allocated in host memory."""


class DeviceError(Error):
    """The device failed."""


class DeviceFailureError(DeviceError):
    """The device reported an error for satgpu's work; the world stays usable."""


class DeviceLostError(DeviceError):
    """The device is lost (driver reset, GPU removed): open a new `Gpu`."""


class DeviceTimeoutError(DeviceError, TimeoutError):
    """The GPU did not finish within the `Gpu`'s timeout; the world stays usable."""


class TileError(Error):
    """A tile of `satgpu.ray.TiledWorld` failed and was not recovered within the step (its actor
    died or restarted on every try, raised, or did not answer; or Ray is not running). `tiles`
    names the failed tiles, `causes` says why, one line each; the exception Ray raised is the
    `__cause__`. No pairs are returned; the next step starts the failed tiles again."""

    def __init__(self, message: str, tiles=(), causes=()):
        super().__init__(message)
        self.tiles = list(tiles)
        self.causes = list(causes)
