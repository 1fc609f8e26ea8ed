import { addDays, localDate, settlementDayFrom, startOfDay } from '../domain/calendar.js';
import { Memo } from './memo.js';

/**
 * The banking-calendar questions a capture asks for each receivable (which São Paulo day an
 * instant is on, and the first instant of its settlement day), remembered per runtime: each
 * answer costs a few Intl calls, and a busy service asks the same ones all day. The rules are
 * src/domain/calendar.ts's; this only remembers their answers.
 */
export class CalendarMemo {
  /** the last day asked for, as the instants it spans: [from, to), one UTC offset throughout */
  private lastDay: { from: number; to: number; ymd: string } | undefined;
  /** settlement instants (ms) by capture day and term */
  private readonly settlements = new Memo<string, number>(1_000);

  /** The São Paulo calendar day of an instant (domain localDate). */
  localDate(instant: Date): string {
    const t = instant.getTime();
    const last = this.lastDay;
    if (last && t >= last.from && t < last.to) return last.ymd;
    const ymd = localDate(instant);
    if (Number.isFinite(t)) {
      const from = startOfDay(ymd).getTime();
      const to = startOfDay(addDays(ymd, 1)).getTime();
      // kept only when the day is 24 h long (no daylight-saving jump in it)
      if (t >= from && t < to && to - from === 86_400_000) this.lastDay = { from, to, ymd };
    }
    return ymd;
  }

  /** The first instant of a receivable's settlement day (domain settlementInstant). */
  settlementInstant(capturedAt: Date, days: number): Date {
    const from = this.localDate(capturedAt);
    const key = `${from}+${days}`;
    let t = this.settlements.get(key);
    if (t === undefined) {
      t = startOfDay(settlementDayFrom(from, days)).getTime();
      this.settlements.set(key, t);
    }
    return new Date(t);
  }
}
