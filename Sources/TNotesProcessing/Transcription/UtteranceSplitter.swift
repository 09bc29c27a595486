/// Decides where one recogniser utterance ends, from the energy of 10 ms frames.
///
/// PocketSphinx keeps its search state for the whole utterance, so an hour fed as one utterance would grow
/// without bound; cutting at pauses keeps memory flat and gives each cut exact sample times (the decoder runs
/// with `-remove_silence no`, so its frame numbers map straight onto the audio).
struct UtteranceSplitter {
    static let frameSamples = AudioInput.sampleRate / 100
    /// A pause this long ends an utterance of at least `minimumFrames`.
    var pauseFrames = 50
    var minimumFrames = 300
    /// Past this, any short pause ends it; at `maximumFrames` it ends regardless.
    var longFrames = 2000
    var shortPauseFrames = 15
    var maximumFrames = 3000

    private var noiseFloor: Double = -1
    private var silenceRun = 0
    private(set) var utteranceFrames = 0

    /// Feeds one frame's samples; true when the utterance should end after this frame.
    mutating func frameEnds<C: Collection<Int16>>(_ samples: C) -> Bool {
        var sum = 0
        for s in samples { sum += abs(Int(s)) }
        let energy = Double(sum) / Double(max(1, samples.count))
        // The floor follows quiet stretches quickly and creeps up slowly (about 5 %/s), so a noisy room
        // raises it but speech does not.
        if noiseFloor < 0 || energy < noiseFloor { noiseFloor = noiseFloor < 0 ? energy : (energy + noiseFloor) / 2 }
        else { noiseFloor *= 1.0005 }
        let silent = energy < max(60, noiseFloor * 3)
        silenceRun = silent ? silenceRun + 1 : 0
        utteranceFrames += 1
        let end = (silenceRun >= pauseFrames && utteranceFrames >= minimumFrames)
            || (silenceRun >= shortPauseFrames && utteranceFrames >= longFrames)
            || utteranceFrames >= maximumFrames
        if end { utteranceFrames = 0 }
        return end
    }
}
