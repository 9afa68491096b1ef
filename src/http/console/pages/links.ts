// The console's links between its pages, built in one place so the overview, the batches page
// and the orders page carry the same scope (merchant, since) and the same parameter names.

export interface OrdersLink {
  state?: string;
  reason?: string;
  class?: string;
  batch?: string;
  merchant?: string;
  since?: string;
  cursor?: string;
}

function query(params: Record<string, string | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v) q.set(k, v);
  const text = q.toString();
  return text ? `?${text}` : '';
}

export const ordersHref = (l: OrdersLink): string => `/console/orders${query({ ...l })}`;

export const batchesHref = (merchant?: string, cursor?: string): string => `/console/batches${query({ merchant, cursor })}`;

export const orderHref = (orderSessionKey: string): string => `/console/orders/${encodeURIComponent(orderSessionKey)}`;

export const overviewHref = (merchant?: string, since?: string): string => `/console${query({ since, merchant })}`;
