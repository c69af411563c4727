/** GET/PUT with a deadline; resolves to the status and body. */
export async function request(
  url: string,
  init: { method?: string; body?: string; timeoutMs?: number } = {},
): Promise<{ status: number; body: string }> {
  const response = await fetch(url, {
    method: init.method ?? "GET",
    ...(init.body === undefined ? {} : { body: init.body }),
    signal: AbortSignal.timeout(init.timeoutMs ?? 10_000),
  });
  return { status: response.status, body: await response.text() };
}
