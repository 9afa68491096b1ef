// Who may read the console: the operator token as `Authorization: Bearer <token>` (scripts,
// curl), or the session cookie the sign-in form sets (browsers). Both compared in constant
// time. The cookie is `<expiry>.<HMAC of the expiry>`: nothing to store, valid on every
// replica that shares the signing key, and void once the operator token changes.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { bearerToken } from '../bearer.ts';
import { sha256, type OperatorCredential } from './credential.ts';

export const COOKIE = 'rescued_console';

export interface SessionSettings {
  credential: OperatorCredential;
  sessionSeconds: number;
  now: () => Date;
}

/** Whether `token` is the operator token (its SHA-256 equals the configured one). */
export function isOperatorToken(credential: OperatorCredential, token: string | undefined): boolean {
  if (!token || token.length > 512) return false;
  return timingSafeEqual(sha256(token), credential.sha256);
}

const mac = (key: Buffer, expiry: string) => createHmac('sha256', key).update(`console:${expiry}`).digest('base64url');

export function newSession(s: SessionSettings): string {
  const expiry = String(Math.floor(s.now().getTime() / 1000) + s.sessionSeconds);
  return `${expiry}.${mac(s.credential.sessionKey, expiry)}`;
}

export function isValidSession(s: SessionSettings, value: string | undefined): boolean {
  const m = value ? /^(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(value) : null;
  if (!m) return false;
  const expected = Buffer.from(mac(s.credential.sessionKey, m[1]!));
  const given = Buffer.from(m[2]!);
  return timingSafeEqual(expected, given) && Number(m[1]) * 1000 > s.now().getTime();
}

/** The value of one cookie of the request, if present. */
export function cookieOf(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

export function isOperator(s: SessionSettings, request: FastifyRequest): boolean {
  return isOperatorToken(s.credential, bearerToken(request.headers.authorization)) || isValidSession(s, cookieOf(request, COOKIE));
}

function cookieAttributes(request: FastifyRequest, maxAge: number): string {
  // Secure whenever the browser reached us over HTTPS (directly, or through a trusted proxy).
  return `Path=/console; HttpOnly; SameSite=Strict; Max-Age=${maxAge}${request.protocol === 'https' ? '; Secure' : ''}`;
}

export function setSessionCookie(s: SessionSettings, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return reply.header('set-cookie', `${COOKIE}=${newSession(s)}; ${cookieAttributes(request, s.sessionSeconds)}`);
}

export function clearSessionCookie(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return reply.header('set-cookie', `${COOKIE}=; ${cookieAttributes(request, 0)}`);
}
