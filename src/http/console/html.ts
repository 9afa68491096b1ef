// Server-rendered HTML from small functions. Every interpolated value is escaped unless it is
// already Html (the output of `html` itself), so a merchant name, an orderId or a gateway
// message can never become markup. No inline script or style anywhere: the CSP forbids both.

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;' };

export function escapeHtml(value: unknown): string {
  return String(value).replace(/[&<>"'`]/g, (c) => ESCAPES[c]!);
}

export class Html {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
  toString(): string {
    return this.text;
  }
}

type Value = Html | string | number | boolean | null | undefined | readonly Value[];

function render(v: Value): string {
  if (v === null || v === undefined || v === false) return '';
  if (v instanceof Html) return v.text;
  if (Array.isArray(v)) return (v as readonly Value[]).map(render).join('');
  return escapeHtml(v);
}

export function html(strings: TemplateStringsArray, ...values: Value[]): Html {
  let out = strings[0]!;
  values.forEach((v, i) => (out += render(v) + strings[i + 1]!));
  return new Html(out);
}

/** A number with thousands separators (1,234,567), the same on every machine. */
export const count = (n: number): string => n.toLocaleString('en-US');

export const percent = (r: number | null): string => (r === null ? '–' : `${(r * 100).toFixed(1)}%`);

export interface PageOptions {
  title: string;
  /** The page's id on <body data-page>: console.js picks what to do by it. */
  page: string;
  body: Html;
  signedIn?: boolean;
}

export function page(o: PageOptions): string {
  return `<!doctype html>${html`<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${o.title} · rescued console</title>
<link rel="icon" href="/console/assets/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/console/assets/uplot.css">
<link rel="stylesheet" href="/console/assets/console.css">
<script src="/console/assets/uplot.js" defer></script>
<script src="/console/assets/console.js" defer></script>
</head>
<body data-page="${o.page}">
<header class="top">
<a class="brand" href="/console">rescued console</a>
${o.signedIn ? html`<nav><a href="/console" data-nav="overview">Overview</a><a href="/console/batches" data-nav="batches">Batches</a><a href="/console/orders" data-nav="orders">Orders</a></nav>
<form class="lookup" method="get" action="/console/orders"><input name="key" placeholder="orderSessionKey or orderId" aria-label="orderSessionKey or orderId" required><button>Open order</button></form>
<form class="signout" method="post" action="/console/logout"><button class="link">Sign out</button></form>` : ''}
</header>
<main>
${o.body}
</main>
</body>
</html>`.text}`;
}
