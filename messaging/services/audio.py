"""Voice notes that play as voice notes: any common audio converted to what WhatsApp's clients record.

WhatsApp plays an audio message as a voice note (the round avatar, the waveform, playback speed) only
when it is OGG/Opus, mono, 48 kHz, and the message carries its length in whole seconds and a waveform of
64 values from 0 to 100. `voice_note` decodes MP3, WAV, M4A/AAC, OGG/Vorbis (and anything else FFmpeg
reads) with PyAV, whose wheels bundle FFmpeg, so no system package is needed (README, "Voice notes").

It is CPU work on the web process: the services call it before the send opens any transaction, and it
refuses to run inside one, so no row lock waits on an encoder. What it reads is bounded twice: the bytes
by MESSAGING_MEDIA_MAX_BYTES (messaging.services.media), the decoded length by
MESSAGING_VOICE_MAX_SECONDS, so a small file that claims hours of audio stops early with a 400.
"""

from __future__ import annotations

import array
import io
import math
from collections.abc import Iterator
from dataclasses import dataclass

import av
from django.conf import settings

from core.errors import ValidationFailed
from core.transactions import transaction_open

RATE = 48_000
MIME = "audio/ogg; codecs=opus"
WAVEFORM_POINTS = 64
# The waveform is read from a copy of the audio at this rate: enough for 64 bars, cheap without numpy.
_WAVEFORM_RATE = 2_000
_BIT_RATE = 32_000  # what WhatsApp's own voice notes use for speech


@dataclass(frozen=True)
class VoiceNote:
    data: bytes  # OGG/Opus, mono, 48 kHz
    seconds: int
    waveform: tuple[int, ...]  # WAVEFORM_POINTS values, 0 to 100


class AudioUndecodable(ValidationFailed):
    """The bytes are not audio Ponte can read (400 naming the problem)."""


def voice_note(content: bytes, *, field: str = "media") -> VoiceNote:
    """`content` (any audio FFmpeg decodes) as a voice note; AudioUndecodable when it cannot be."""
    if transaction_open():
        raise RuntimeError("voice_note is CPU work: call it before opening a transaction.")
    max_seconds = settings.MESSAGING_VOICE_MAX_SECONDS
    try:
        source = av.open(io.BytesIO(content), mode="r", metadata_errors="ignore")
    except (av.FFmpegError, ValueError) as exc:
        raise AudioUndecodable(f"{field}: not audio that can be decoded ({_reason(exc)}).") from None
    with source:
        if not source.streams.audio:
            raise AudioUndecodable(f"{field}: the file holds no audio stream.")
        try:
            return _encoded(_decoded(source, max_seconds, field))
        except av.FFmpegError as exc:
            raise AudioUndecodable(f"{field}: the audio could not be decoded ({_reason(exc)}).") from None


def _reason(exc: Exception) -> str:
    return str(getattr(exc, "strerror", "") or exc).strip() or type(exc).__name__


def _decoded(source: av.container.InputContainer, max_seconds: int, field: str) -> tuple[list, array.array]:
    """The first audio stream as mono 48 kHz frames, and a low-rate copy of its samples for the
    waveform; refused past `max_seconds` or when it decodes to nothing."""
    to_voice = av.AudioResampler(format="s16", layout="mono", rate=RATE)
    to_wave = av.AudioResampler(format="s16", layout="mono", rate=_WAVEFORM_RATE)
    frames: list = []
    wave = array.array("h")
    samples = 0
    for frame in _frames(source):
        for out in to_voice.resample(frame):
            samples += out.samples
            frames.append(out)
        for out in to_wave.resample(frame):
            wave.frombytes(bytes(out.planes[0])[: out.samples * 2])
        if samples > max_seconds * RATE:
            raise AudioUndecodable(f"{field}: the audio is longer than {max_seconds} seconds.")
    frames += to_voice.resample(None)
    for out in to_wave.resample(None):
        wave.frombytes(bytes(out.planes[0])[: out.samples * 2])
    if not frames or not sum(f.samples for f in frames):
        raise AudioUndecodable(f"{field}: the file holds no audio samples.")
    return frames, wave


def _frames(source: av.container.InputContainer) -> Iterator[av.AudioFrame]:
    stream = source.streams.audio[0]
    for packet in source.demux(stream):
        yield from packet.decode()


def _encoded(decoded: tuple[list, array.array]) -> VoiceNote:
    frames, wave = decoded
    samples = sum(f.samples for f in frames)
    out = io.BytesIO()
    with av.open(out, mode="w", format="ogg") as target:
        stream = target.add_stream("libopus", rate=RATE)
        stream.layout = "mono"
        stream.bit_rate = _BIT_RATE
        stream.codec_context.options = {"application": "voip"}
        pts = 0
        for frame in frames:
            frame.pts = pts
            pts += frame.samples
            target.mux(stream.encode(frame))
        target.mux(stream.encode(None))
    return VoiceNote(data=out.getvalue(), seconds=max(1, round(samples / RATE)), waveform=waveform(wave))


def waveform(samples: array.array, points: int = WAVEFORM_POINTS) -> tuple[int, ...]:
    """`points` bars from 0 to 100: each the mean loudness of its slice of the audio, the loudest 100
    (as WhatsApp's clients draw them); silence is all zeros."""
    if not samples:
        return (0,) * points
    size = len(samples) / points
    levels = []
    for index in range(points):
        part = samples[int(index * size) : max(int((index + 1) * size), int(index * size) + 1)]
        levels.append(sum(map(abs, part)) / len(part) if part else 0.0)
    loudest = max(levels)
    if loudest <= 0:
        return (0,) * points
    return tuple(min(100, math.floor(level / loudest * 100 + 0.5)) for level in levels)
