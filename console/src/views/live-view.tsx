// Changes as they happen: every event and status change the token may see, newest first, each a link
// to the object's version it made.
import { useState } from 'preact/hooks';
import type { FeedItem } from '../live';
import { href } from '../router';
import { useFeed, useStreamState } from '../session';
import { when } from '../ui';

const KEEP = 200;

export function LiveView() {
  const [items, setItems] = useState<FeedItem[]>([]);
  const { state, detail } = useStreamState();
  useFeed((batch) => setItems((old) => [...batch.slice().reverse(), ...old].slice(0, KEEP)), []);
  return (
    <section aria-labelledby="live-title">
      <h1 id="live-title">Live changes</h1>
      <p class={state === 'lost' ? 'problem' : 'muted'} role="status">
        {state === 'live' ? 'Following the events feed: changes appear here as they are made.' : state === 'lost' ? `The live stream is lost (${detail}); reconnecting, and no change will be missed.` : 'Connecting to the events feed…'}
      </p>
      {!items.length ? (
        <p class="muted">No change since this page opened.</p>
      ) : (
        <ol class="feed" aria-live="polite">
          {items.map((i) => (
            <li key={`${i.position}`} data-kind={i.kind} data-name={i.name}>
              <span class="muted">{when(i.time)}</span> <strong>{i.type}</strong>{' '}
              <a href={href.object(i.kind, i.namespace, i.name, i.type === 'StatusChanged' ? undefined : { version: String(i.version) })}>
                {i.kind} {i.namespace ? `${i.namespace}/` : ''}
                {i.name}
              </a>{' '}
              {i.type === 'StatusChanged' ? 'status' : `version ${i.version}`} by {i.actor}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
