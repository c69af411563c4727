const DAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

function pad(n: number, width = 2): string {
  return String(n).padStart(width, "0");
}

/**
 * Formats a stage time like cloud-init 26.1+: `datetime.fromtimestamp(ts, tz=utc).strftime("%a, %d %b %Y
 * %H:%M:%S %z")` in the C locale, e.g. 125.678 → `Thu, 01 Jan 1970 00:02:05 +0000`. Python rounds to the
 * microsecond first, then the format truncates to the second.
 */
export function formatLastUpdate(seconds: number): string {
  const micros = Math.round(seconds * 1e6);
  const date = new Date(Math.floor(micros / 1000));
  if (Number.isNaN(date.getTime())) return "";
  const year = date.getUTCFullYear();
  return (
    `${DAYS[date.getUTCDay()]}, ${pad(date.getUTCDate())} ${MONTHS[date.getUTCMonth()]} ${pad(year, 4)} ` +
    `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())} +0000`
  );
}
