/** Whether a URL host name is a loopback address, where plain http is allowed (lock URLs, sources, the client). */
export function isLoopbackHost(hostname: string): boolean {
  return (
    hostname === "localhost" || hostname === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname)
  );
}
