// How many requests and connections are open, for a graceful stop. A count, not a set of them: with
// every request added to a Set and deleted from it, the young objects a request holds were promoted
// to the old generation about ten times as much (measured with --trace-gc-nvp under bench:proxy's
// load), and the garbage collector's scavenges took three times as long.
export class InFlight {
  private open = 0;

  get size(): number {
    return this.open;
  }

  begin(): void {
    this.open++;
  }

  end(): void {
    this.open--;
  }
}
