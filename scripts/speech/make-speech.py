#!/usr/bin/env python3
"""Speaks the sermon passages of passages.json with two voices, for the recognizer's tests and the bench
(issue #52): hibari-tts's neural voice (af_heart, in its wheel) and espeak-ng (Debian).

Usage: make-speech.py OUTDIR. Writes, for each passage and voice, NAME-VOICE.wav (16-bit mono at the voice's own
rate: 24 kHz neural, 22.05 kHz espeak-ng) and NAME-VOICE.json: {text, voice, rate, duration, sentences: [{start,
end, text}]}, each sentence's time span in the audio (its synthesized sound with the silence at its edges cut
off), which is what a segment's times are checked against. Deterministic (hibari with seed 0)."""
import json, os, subprocess, sys, tempfile, wave

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
LEAD_IN = 0.6  # seconds of silence before the first sentence


def trim(audio, rate):
    """The sound without the near-silence at its edges (what the voice adds around a sentence)."""
    # A low threshold and a margin: a word's soft first consonant ("t", "f") is quiet, and cutting it would
    # score the voice, not the recognizer.
    loud = np.nonzero(np.abs(audio) > 0.002)[0]
    if len(loud) == 0:
        return audio[:0]
    pad = int(0.05 * rate)
    return audio[max(0, loud[0] - pad):loud[-1] + pad]


def neural():
    from hibari import Hibari
    tts = Hibari()
    return 24000, lambda text: np.asarray(tts(text, seed=0), dtype=np.float32)


def espeak():
    def speak(text):
        with tempfile.NamedTemporaryFile(suffix=".wav") as f:
            # espeak-ng's own defaults (voice "en", 175 words a minute).
            subprocess.run(["espeak-ng", "-w", f.name, text], check=True)
            with wave.open(f.name) as w:
                assert w.getnchannels() == 1 and w.getsampwidth() == 2 and w.getframerate() == 22050
                return np.frombuffer(w.readframes(w.getnframes()), dtype="<i2").astype(np.float32) / 32768
    return 22050, speak


def main(out):
    os.makedirs(out, exist_ok=True)
    passages = json.load(open(os.path.join(HERE, "passages.json")))["passages"]
    for voice, make in (("neural", neural), ("espeak", espeak)):
        rate, speak = make()
        for p in passages:
            parts, spans, t = [np.zeros(int(LEAD_IN * rate), dtype=np.float32)], [], LEAD_IN
            for text, pause in p["sentences"]:
                sound = trim(speak(text), rate)
                spans.append({"start": round(t, 3), "end": round(t + len(sound) / rate, 3), "text": text})
                parts += [sound, np.zeros(int(pause * rate), dtype=np.float32)]
                t += (len(sound) + int(pause * rate)) / rate
            audio = np.concatenate(parts)
            pcm = (np.clip(audio, -1, 1) * 32767).astype("<i2")
            name = f"{p['name']}-{voice}"
            with wave.open(os.path.join(out, name + ".wav"), "wb") as w:
                w.setnchannels(1); w.setsampwidth(2); w.setframerate(rate); w.writeframes(pcm.tobytes())
            meta = {"text": " ".join(s[0] for s in p["sentences"]), "voice": voice, "rate": rate,
                    "duration": round(len(audio) / rate, 3), "sentences": spans}
            with open(os.path.join(out, name + ".json"), "w") as f:
                json.dump(meta, f, indent=1)
            print(f"make-speech: {name}.wav, {meta['duration']} s", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1])
