/** How each figure was measured and its error bound: shown in every report. */
export const METHODOLOGY: readonly { topic: string; text: string }[] = [
  {
    topic: 'Server clock',
    text:
      'The server clock is estimated from each response\'s Date header and round-trip time: the server stamped Date (floored to the second) between our send and our receipt, so every response bounds the offset; the intervals are intersected over the run. The estimate and its ± bound are shown at the top. Verdicts compare Reset with the same response\'s Date, never with the client clock.',
  },
  {
    topic: 'Learning the limiter',
    text:
      "Before judging, the harness learns how the server limits (the limiter profile, per tier, on one organization): between two counted reads it sends one request in question (HEAD, 404, 403, 401, another read route, one upload) and reads from Remaining whether it counted; it uses up the read quota and reads the 429's Reset or Retry-After; shortly after, a read admitted and refused again right after it shows quota coming back a little at a time (a bucket); after the announced end (where no clock-aligned boundary can fall just before it), a read and reads spread over the next window show whether the window it fell in opened with it (Remaining one lower at each) or is aligned to the clock (Remaining back up). What it cannot tell stays unknown, with the reason.",
  },
  {
    topic: 'Quota windows',
    text:
      "Every quota check starts in a window of its own, per organization and quota class, scheduled from the profile: on clock-aligned windows just after the server shows a boundary (Reset advancing in any format, Remaining back up, or, without headers, the server clock crossing a window multiple); on windows that start at the first request, once every earlier window is surely over, so the check's first request opens one. When the profile cannot tell, both. A ledger keeps the harness's own requests the server counted in the window (a counted sync poll), and exactness counts them. A check whose responses cannot be placed in one window is inconclusive, never pass or fail; an over-admission inside the window is a fail whatever came after.",
  },
  {
    topic: 'No lucky pass',
    text:
      "After the sequential read check's 429, the harness asks again at once (the bracket: still refused, the window was in force), reads another route (one read quota per organization, not per route), and reads a few more times spread over the rest of the window: anything admitted while the window surely lasts is a quota that refills or counts per route, and fails QUOTA-READ with the evidence.",
  },
  {
    topic: 'Spec, assumption, observation',
    text:
      'A check fails the spec only on evidence that breaks the spec. Where the spec is silent (HEAD counted, bulk uploads counted per request, windows starting at the first request), what the server does is learned and reported, and the checks judge the spec under it; a deployment may declare its intended behaviour in its config ("assumptions"), and is then held to its word.',
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
