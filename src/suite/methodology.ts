/** How each figure was measured and its error bound: shown in every report. */
export const METHODOLOGY: readonly { topic: string; text: string }[] = [
  {
    topic: 'Server clock',
    text:
      'The server clock is estimated from each response\'s Date header and round-trip time: the server stamped Date (floored to the second) between our send and our receipt, so every response bounds the offset; the intervals are intersected over the run. The estimate and its ± bound are shown at the top. Verdicts compare Reset with the same response\'s Date, never with the client clock.',
  },
  {
    topic: 'Quota windows',
    text:
      'A quota check starts just after a window opens: the harness polls HEAD /recruiter/bootstrap (free, by assumption) until X-RateLimit-Reset advances (or, if Reset is not a plausible epoch, until the server\'s Date crosses a window multiple), then sends at once. A check whose responses carry different Reset values, or that may have outlasted the window, is inconclusive, never pass or fail.',
  },
  {
    topic: 'Exact counting',
    text:
      'Sequential checks send Limit + 1 requests (a few more if no 429 came) one at a time; burst checks release requests together in batches one smaller than the concurrency cap, so a cap rejection cannot pass for a quota rejection, and the first batch is sized so that one batch holds both request #Limit and #Limit + 1: a server that races its admissions shows it. A Limit the server announces is believed up to 20 times the published figure. No request is retried automatically; pipelining is 1.',
  },
  {
    topic: 'Concurrency cap',
    text:
      "The cap's worth of slow uploads are sent together; the harness then asks the server, with an empty bulk upload that is refused without counting, until its ingest Remaining shows every held upload counted, and only then sends one more (a fast read). An admitted extra fails the check only with that witness; the verdict counts only if every held request was still in flight when the extra was answered. An undecided measurement is repeated while the window's ingest quota has room.",
  },
  {
    topic: 'Revocation latency',
    text:
      'Every edge is probed on its own connection pool at a short interval from before the revoke call until all edges reject and a settle period has passed. Per edge: lower bound = send time of the last admitted probe, upper bound = receipt of the first rejected probe, both from the start of the revoke call on the monotonic clock. Pass only if every upper bound is under 3 s; fail if any lower bound is 3 s or more; otherwise inconclusive. A 429 is an unusable probe, not a rejection.',
  },
  {
    topic: 'Latency',
    text:
      'Latency is time to response headers on the monotonic clock. Under open-model load it is measured from the intended send time, so a stalled server cannot hide its queueing (no coordinated omission).',
  },
];
