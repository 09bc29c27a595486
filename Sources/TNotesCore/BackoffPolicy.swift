/// Exponential backoff with full jitter: attempt n waits a random time in [0, min(max, base·factor^n)],
/// never less than a server's Retry-After. Full jitter spreads retries of many devices apart.
public struct BackoffPolicy: Sendable, Equatable {
    public var base: Double
    public var factor: Double
    public var max: Double

    public init(base: Double = 1, factor: Double = 2, max: Double = 300) {
        self.base = base
        self.factor = factor
        self.max = max
    }

    /// The ceiling for attempt `n` (1-based).
    public func ceiling(attempt: Int) -> Double {
        let exp = Swift.min(Double(attempt - 1), 60)
        return Swift.min(max, base * pow2(factor, exp))
    }

    public func delay<R: RandomNumberGenerator>(attempt: Int, retryAfter: Double? = nil, using rng: inout R) -> Double {
        let jittered = Double.random(in: 0...ceiling(attempt: attempt), using: &rng)
        return Swift.max(jittered, retryAfter ?? 0)
    }

    public func delay(attempt: Int, retryAfter: Double? = nil) -> Double {
        var rng = SystemRandomNumberGenerator()
        return delay(attempt: attempt, retryAfter: retryAfter, using: &rng)
    }

    private func pow2(_ b: Double, _ e: Double) -> Double {
        var r = 1.0
        var i = 0.0
        while i < e { r *= b; i += 1 }
        return r
    }
}
