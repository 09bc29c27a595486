/// Streaming sample-rate conversion to 16 kHz: a box low-pass (its width the decimation ratio, so energy above
/// the new Nyquist does not fold back as noise the recogniser hears) followed by linear interpolation.
/// Speech recognition needs no better: PocketSphinx's own front end keeps 130–6800 Hz only.
final class Resampler {
    private let step: Double
    private var box: [Float]
    private var boxSum: Float = 0
    private var boxIndex = 0
    private var boxCount = 0
    private var previous: Float = 0
    /// Index of the next input sample, and the input position of the next output sample.
    private var inputIndex: Double = 0
    private var nextOutput: Double = 0

    init(from inputRate: Int, to outputRate: Int) {
        step = Double(inputRate) / Double(outputRate)
        box = [Float](repeating: 0, count: max(1, Int(step.rounded(.down))))
    }

    /// A sample at full scale ±1 as 16-bit PCM, clipped. Total: float WAVs hold any value (1e38 overflows
    /// `y * 32767` to infinity, and `Int` of an infinity or NaN traps); NaN is silence.
    static func pcm16(_ y: Float) -> Int16 {
        let v = (y * 32767).rounded()
        guard !v.isNaN else { return 0 }
        return v >= 32767 ? .max : v <= -32768 ? .min : Int16(v)
    }

    /// Appends the converted samples of `input` (mono, full scale ±1) to `output`.
    func process(_ input: ArraySlice<Float>, into output: inout [Int16]) {
        // Moved out for the loop (no uniqueness check per sample), moved back after.
        var boxBuffer = box
        box = []
        defer { box = boxBuffer }
        for x in input {
            // Running mean over the last box.count samples.
            boxSum += x - boxBuffer[boxIndex]
            boxBuffer[boxIndex] = x
            boxIndex = (boxIndex + 1) % boxBuffer.count
            boxCount = min(boxCount + 1, boxBuffer.count)
            let filtered = boxSum / Float(boxCount)
            // Outputs that fall between the previous input sample and this one.
            while nextOutput <= inputIndex {
                let frac = Float(nextOutput - (inputIndex - 1))
                let y = inputIndex == 0 ? filtered : previous + (filtered - previous) * frac
                output.append(Self.pcm16(y))
                nextOutput += step
            }
            previous = filtered
            inputIndex += 1
        }
    }
}
