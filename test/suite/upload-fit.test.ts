/**
 * Whether an ingest task's uploads fit one window: its first upload, its batches, and one upload time
 * to find the window's start unless the server's windows start with the first request.
 */
import { describe, expect, it } from 'vitest';
import { uploadFit, uploadFitText } from '../../src/suite/upload-fit.ts';

describe('uploadFit', () => {
  it('counts the first upload, the batches and one to find the start, against 95% of the window', () => {
    // Enterprise singles at 3 s: 6 batches of 119. 8 upload times of 300 ms = 2.4 s of 2.85 s.
    expect(uploadFit(6, 300, 3000)).toEqual({
      fits: true,
      uploadTimes: 8,
      pinned: true,
      needMs: 2400,
      maxUploadMs: 356,
    });
    expect(uploadFit(6, 360, 3000).fits).toBe(false);
  });

  it('spends no upload time finding the start where windows open with the first request', () => {
    expect(uploadFit(6, 360, 3000, true)).toEqual({
      fits: true,
      uploadTimes: 7,
      pinned: false,
      needMs: 2520,
      maxUploadMs: 407,
    });
  });

  it('says what the uploads need in one line, and the longest an upload may take', () => {
    const fit = uploadFit(3, 2000, 3000);
    expect(uploadFitText(fit, 2000, 3000)).toBe(
      "5 upload times one after another (the first, 3 batches under the cap, one to find the window's start) = 10s at 2s an upload, over 95% of the 3s window (it fits up to 570ms an upload)",
    );
    const opened = uploadFit(1, 500, 3000, true);
    expect(uploadFitText(opened, 500, 3000)).toBe(
      '2 upload times one after another (the first, which opens the window, 1 batch under the cap) = 1s at 500ms an upload, within the 3s window',
    );
  });
});
