/** How each figure was measured and its error bound: shown in every report. */
export const METHODOLOGY: readonly { topic: string; text: string }[] = [
  {
    topic: 'Server clock',
    text: "The server clock is estimated from each response's Date header and round-trip time: the server stamped Date (floored to the second) between our send and our receipt, so every response bounds the offset; the intervals are intersected over the run. The estimate and its ± bound are shown at the top. Verdicts compare Reset with the same response's Date, never with the client clock.",
  },
  {
    topic: 'Learning the limiter',
    text: "The harness learns how the server limits (the limiter profile, per tier): between two counted reads it sends one request in question (HEAD, 404, 403, 401, another read route, one upload) and reads from Remaining whether it counted; it uses up the read quota and reads the 429's Reset or Retry-After; shortly after, a read admitted and refused again right after it shows quota coming back a little at a time (a bucket); after the announced end (where no clock-aligned boundary can fall just before it), a read and reads spread over the next window show whether the window it fell in opened with it or is aligned to the clock, and a second round placed where the two kinds fall apart decides what the first left open. It runs beside the checks on an organization of its own where the target provides one; where the checks must wait for it (a deployment with no organization to spare) it stops once it has read the window it used up, and how windows start stays open where the server shows rate-limit headers. A request lost on the way is sent again. What it cannot tell stays unknown, with the reason.",
  },
  {
    topic: 'Quota windows',
    text: "Every quota check starts in a window of its own, per organization and quota class, shown fresh by the server itself: the check's own first request (the opener) goes once every earlier window of ours on its counters is over, and its answer's Remaining says whether anything counted before it, its Reset when the window ends. A window found under way with nothing of ours in it is taken while a third of it is left and twice the check's need; else openers sent from shortly before its end pin the next window's start between two of them. Where the profile knows more it places windows more finely (windows that open with the first request, a Reset that moves, a bucket); a server without rate-limit headers is scheduled by the learned phase and the server clock. A ledger keeps the harness's own requests the server counted in the window, and exactness counts them. A check whose responses cannot be placed in one window is inconclusive and measured again in the next window, once; an over-admission inside the window is a fail whatever came after.",
  },
  {
    topic: 'No lucky pass',
    text: "After the sequential read check's 429, the harness asks again at once (the bracket: still refused, the window was in force), reads another route (one read quota per organization, not per route), and reads a few more times spread over the rest of the window: anything admitted while the window surely lasts is a quota that refills or counts per route, and fails QUOTA-READ with the evidence.",
  },
  {
    topic: 'Spec, assumption, observation',
    text: 'A check fails the spec only on evidence that breaks the spec. Where the spec is silent (HEAD counted, bulk uploads counted per request, windows starting at the first request), what the server does is learned and reported, and the checks judge the spec under it; a deployment may declare its intended behaviour in its config ("assumptions"), and is then held to its word.',
  },
  {
    topic: 'Exact counting',
    text: "Sequential checks send Limit + 1 requests (a few more if no 429 came) one at a time; burst checks release requests together in batches one smaller than the concurrency cap, so a cap rejection cannot pass for a quota rejection, the first batch sized so that one batch holds both the last admissible request and the first past it (a server that races its admissions shows it), and as few batches as that allows. Uploads are planned from the upload time the run measured: a task whose uploads cannot fit 95% of a window (its first upload, its batches, and one upload time to find the window's start unless windows open with the first request) is named before any quota is spent and not run. A request that got no answer is read from the server's own Remaining (around it, one after another; in a burst, from the values every admission took) before it is left undecided; lost uploads are made up once. A Limit the server announces is believed up to 20 times the published figure; ingest checks upload the published or declared figure. No request is retried automatically; pipelining is 1.",
  },
  {
    topic: 'Concurrency cap',
    text: "Decided from the run's own timings, whatever the server counts, how it treats a malformed request, or how a round trip splits into its two ways: fast reads one after another give the fastest round trip m and their spread σ, the most either way of a request strays; λ is how late the measurement's own timers fired. One fewer than the cap of slow uploads go out together, the control (the same read with those held) once they surely reached the server, the last upload once the control's slot is free, then one more read, the extra. It counts only when every held upload reached the server before it (sent(extra) − sent(held) > σ) and it reached the server before any held answer left it (answered(held) − sent(extra) > m + 2σ + λ). Then a 429 (or a gateway's 503) passes; an extra admitted whose answer left before any held one's (answered(held) − answered(extra) > σ + λ) fails; one answered only after a held one passes as queued, beside a control answered at once. Anything else is measured again while the window's ingest quota has room, then in the next window.",
  },
  {
    topic: 'Revocation latency',
    text: 'Every edge is probed on its own connection pool at a short interval from before the revoke call until all edges reject and a settle period has passed. Per edge: lower bound = send time of the last admitted probe, upper bound = receipt of the first rejected probe, both from the start of the revoke call on the monotonic clock. Pass only if every upper bound is under 3 s; fail if any lower bound is 3 s or more; otherwise inconclusive. A 429 is an unusable probe, not a rejection.',
  },
  {
    topic: 'Revocation confidence',
    text: "What the trials prove, beyond their percentiles. A trial is within the SLA when every edge's upper bound is under 3 s (a bound straddling 3 s counts as not within). From x of N trials within, the one-sided 95 % lower confidence bound on the share of all revocations that take effect everywhere within 3 s is the exact binomial bound of Clopper and Pearson (1934): the 5 % quantile of Beta(x, N − x + 1), which for x = N is 0.05^(1/N) (20 of 20: 86.1 %). The slowest of N trials is a 95 % upper bound for the q-quantile of revocation latency with q^N = 0.05: about the 86th percentile for 20 trials; bounding p95 takes at least 59 trials, p99 at least 299, none slower. Trials are taken as independent draws; run several at once, they share the edges and the revocation system, so a slowdown common to them is counted once per trial, and the bound is only as good as that assumption. A target (--revocation-confidence 99%@95%) raises the trials to the least N with share^N ≤ 1 − level (299 for 99 % at 95 %) and REVOKE-LATENCY passes only once the bound reaches it.",
  },
  {
    topic: 'Latency',
    text: 'Latency is time to response headers on the monotonic clock. Under open-model load it is measured from the intended send time, so a stalled server cannot hide its queueing (no coordinated omission).',
  },
];
