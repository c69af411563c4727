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
  // CPython pytime.c _PyTime_DoubleToDenominator: the fraction alone (modf, exact) times 1e6 is rounded, so
  // 86399.9999994999962 stays in its second, where rounding seconds * 1e6 (86399999999.5) would carry into the
  // next. (Python rounds half to even; a tie, 999999.5, carries either way, so Math.round agrees at the second.)
  let whole = Math.trunc(seconds);
  let micros = Math.round((seconds - whole) * 1e6);
  if (micros >= 1e6) {
    micros -= 1e6;
    whole += 1;
  } else if (micros < 0) {
    micros += 1e6;
    whole -= 1;
  }
  const date = new Date(whole * 1000 + Math.floor(micros / 1000));
  if (Number.isNaN(date.getTime())) return "";
  const year = date.getUTCFullYear();
  return (
    `${DAYS[date.getUTCDay()]}, ${pad(date.getUTCDate())} ${MONTHS[date.getUTCMonth()]} ${pad(year, 4)} ` +
    `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())} +0000`
  );
}
