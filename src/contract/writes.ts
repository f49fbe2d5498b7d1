/**
 * What a run may write to a deployment (README "What a run sends, writes and keeps"): `own`, what
 * the checks need, named as tiergate's and cleaned up where the API allows; `none`, nothing at all.
 */
export const WRITE_POLICIES = ['own', 'none'] as const;
export type WritePolicy = (typeof WRITE_POLICIES)[number];
