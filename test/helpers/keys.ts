import { randomBytes } from 'node:crypto';

export const key32 = () => randomBytes(32).toString('base64');
