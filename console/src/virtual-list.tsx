// A list that renders only the rows in view (and a few around them): a Gateway with thousands of
// routes scrolls as smoothly as one with ten. Rows have one fixed height, so where each row sits is
// arithmetic, not measurement. Arrow keys, Page Up/Down, Home and End move the focus through the list.
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';

const OVERSCAN = 8;

export function VirtualList<T>(props: {
  items: T[];
  rowHeight: number;
  height: number;
  label: string;
  row: (item: T, index: number) => ComponentChildren;
  keyOf: (item: T) => string;
  /** the row the keyboard or a click is on */
  onSelect?: (item: T) => void;
}) {
  const { items, rowHeight, height, row, keyOf } = props;
  const box = useRef<HTMLDivElement>(null);
  const [top, setTop] = useState(0);
  const [focus, setFocus] = useState(0);
  const first = Math.max(0, Math.floor(top / rowHeight) - OVERSCAN);
  const last = Math.min(items.length, Math.ceil((top + height) / rowHeight) + OVERSCAN);
  // Rows are keyed by their slot in a fixed pool (index modulo the pool's size): a row that stays in
  // view keeps its element untouched, and a row scrolled in takes over the element of one scrolled
  // out, so a jump of a whole screen updates text instead of building new elements.
  const pool = Math.ceil(height / rowHeight) + 2 * OVERSCAN + 2;

  useEffect(() => {
    if (focus >= items.length && items.length) setFocus(items.length - 1);
  }, [items.length]);

  const onKey = (e: KeyboardEvent) => {
    const page = Math.max(1, Math.floor(height / rowHeight) - 1);
    const moves: Record<string, number> = { ArrowDown: 1, ArrowUp: -1, PageDown: page, PageUp: -page, Home: -items.length, End: items.length };
    if (!(e.key in moves) || !items.length) return;
    e.preventDefault();
    const next = Math.min(items.length - 1, Math.max(0, focus + moves[e.key]));
    setFocus(next);
    const el = box.current!;
    if (next * rowHeight < el.scrollTop) el.scrollTop = next * rowHeight;
    else if ((next + 1) * rowHeight > el.scrollTop + height) el.scrollTop = (next + 1) * rowHeight - height;
    // the row is rendered once the scroll has been handled
    requestAnimationFrame(() => (el.querySelector(`[data-index="${next}"] a, [data-index="${next}"]`) as HTMLElement | null)?.focus());
  };

  return (
    <div
      ref={box}
      class="vlist"
      role="list"
      aria-label={props.label}
      style={{ height: `${Math.min(height, Math.max(rowHeight, items.length * rowHeight))}px` }}
      onScroll={(e) => setTop((e.currentTarget as HTMLDivElement).scrollTop)}
      onKeyDown={onKey}
    >
      <div style={{ height: `${items.length * rowHeight}px`, position: 'relative' }}>
        {items.slice(first, last).map((it, i) => (
          <div
            key={(first + i) % pool}
            data-key={keyOf(it)}
            role="listitem"
            aria-setsize={items.length}
            aria-posinset={first + i + 1}
            data-index={first + i}
            class="vrow"
            tabIndex={first + i === focus ? 0 : -1}
            onFocus={() => {
              setFocus(first + i);
              props.onSelect?.(it);
            }}
            style={{ top: `${(first + i) * rowHeight}px`, height: `${rowHeight}px` }}
          >
            {row(it, first + i)}
          </div>
        ))}
      </div>
    </div>
  );
}
