"""Audio files built with PyAV itself, in the formats people upload (no binary fixtures), and a reader of
what Ponte produced."""

from __future__ import annotations

import array
import io
import math
from dataclasses import dataclass

import av

# container format, encoder, sample format it wants
FORMATS = {
    "mp3": ("mp3", "libmp3lame"),
    "wav": ("wav", "pcm_s16le"),
    "m4a": ("ipod", "aac"),
    "aac": ("adts", "aac"),
    "ogg": ("ogg", "vorbis"),
}


def tone(
    kind: str, *, seconds: float = 2.0, rate: int = 44_100, stereo: bool = True, rising: bool = True
) -> bytes:
    """A 440 Hz tone of `seconds` in format `kind`; `rising`: its loudness grows from silence, so the
    waveform rises too."""
    container, codec = FORMATS[kind]
    layout = "stereo" if stereo else "mono"
    channels = 2 if stereo else 1
    total = int(rate * seconds)
    out = io.BytesIO()
    with av.open(out, "w", format=container) as target:
        stream = target.add_stream(codec, rate=rate)
        stream.layout = layout
        if codec == "vorbis":  # FFmpeg's own Vorbis encoder is marked experimental
            stream.codec_context.options = {"strict": "-2"}
        resampler = av.AudioResampler(format=stream.codec_context.format.name, layout=layout, rate=rate)
        for start in range(0, total, 4096):
            count = min(4096, total - start)
            values = array.array("h")
            for i in range(start, start + count):
                level = (i / total) if rising else 1.0
                sample = int(12_000 * level * math.sin(2 * math.pi * 440 * i / rate))
                values.extend([sample] * channels)
            frame = av.AudioFrame(format="s16", layout=layout, samples=count)
            frame.planes[0].update(values.tobytes())
            frame.sample_rate = rate
            frame.pts = start
            for ready in resampler.resample(frame):
                target.mux(stream.encode(ready))
        for ready in resampler.resample(None):
            target.mux(stream.encode(ready))
        target.mux(stream.encode(None))
    return out.getvalue()


@dataclass(frozen=True)
class AudioFacts:
    container: str
    codec: str
    channels: int
    rate: int
    seconds: float


def audio_facts(data: bytes) -> AudioFacts:
    """What a file really is, decoded to the last sample (its duration from the samples, not a header)."""
    with av.open(io.BytesIO(data)) as source:
        stream = source.streams.audio[0]
        samples = sum(frame.samples for packet in source.demux(stream) for frame in packet.decode())
        return AudioFacts(
            container=source.format.name,
            codec=stream.codec_context.name,
            channels=stream.codec_context.channels,
            rate=stream.codec_context.sample_rate,
            seconds=samples / stream.codec_context.sample_rate,
        )
