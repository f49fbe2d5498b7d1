/** The revocation task kind with its default timing; what it sends and how it judges are in src/revocation/. */
import { revocationTask } from '../revocation/task.ts';

export const revocation = revocationTask();
