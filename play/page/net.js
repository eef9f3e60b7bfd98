// The WebSocket to `climbrl serve` (protocol version 1, docs/protocol.md).
//
// One Connection per page. `request(msg)` sends a message with an `id` and resolves with the
// server's direct reply (the message whose `re` is that id: joined, checked, hint, error);
// every other message (hello, state, error without `re`) goes to `onMessage`, and so does a
// `state` that answers a request. When the socket
// drops, the connection reopens with a growing delay and calls `onReopen` so the page can
// join its room again with its token.

export const PROTOCOL = 1;
const PINGS_PER_IDLE = 3;

export class Connection {
  constructor({ onMessage, onReopen, onDown }) {
    this.onMessage = onMessage;
    this.onReopen = onReopen;
    this.onDown = onDown;
    this.nextId = 1;
    this.waiting = new Map();
    this.ws = null;
    this.retry = 0;
    this.closing = false;
    this.hello = null;
    this.pinger = null;
  }

  url() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    return `${scheme}//${location.host}/ws`;
  }

  /** Opens the socket; resolves with the server's `hello`. */
  open() {
    return new Promise((resolve) => {
      const ws = new WebSocket(this.url());
      this.ws = ws;
      let greeted = false;
      ws.addEventListener("message", (ev) => {
        let msg;
        try {
          msg = JSON.parse(ev.data);
        } catch {
          return;
        }
        if (msg.type === "hello" && !greeted) {
          greeted = true;
          this.hello = msg;
          this.retry = 0;
          this.keepAlive(ws, msg.limits && msg.limits.idle_s);
          resolve(msg);
          return;
        }
        if (msg.re !== undefined && this.waiting.has(msg.re)) {
          const done = this.waiting.get(msg.re);
          this.waiting.delete(msg.re);
          done(msg);
          if (msg.type !== "state") return; // a state that answers a request is still the table
        }
        this.onMessage(msg);
      });
      ws.addEventListener("close", () => {
        clearInterval(this.pinger);
        for (const done of this.waiting.values()) done({ type: "error", code: "closed", message: "connection closed" });
        this.waiting.clear();
        if (this.closing) return;
        if (this.onDown) this.onDown();
        const delay = Math.min(5000, 250 * 2 ** this.retry++);
        // a socket that never said hello leaves the first open() waiting: the reopened one
        // answers it (the page is built then); after a hello, the page joins its room again
        setTimeout(() => this.open().then((hello) => {
          if (!greeted) resolve(hello);
          else if (this.onReopen) this.onReopen();
        }), delay);
      });
    });
  }

  /** Pings three times within the server's idle limit, so a quiet page (a person watching
   * the CPUs, or thinking) keeps its socket. */
  keepAlive(ws, idleS) {
    clearInterval(this.pinger);
    if (!idleS) return;
    this.pinger = setInterval(() => {
      if (this.ws === ws) this.send({ type: "ping" });
    }, (idleS * 1000) / PINGS_PER_IDLE);
  }

  send(msg) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return false;
    this.ws.send(JSON.stringify(msg));
    return true;
  }

  /** Sends `msg` with a fresh id; resolves with the reply that carries it back. */
  request(msg) {
    const id = this.nextId++;
    return new Promise((resolve) => {
      if (!this.send({ ...msg, id })) {
        resolve({ type: "error", code: "closed", message: "not connected to the table server" });
        return;
      }
      this.waiting.set(id, resolve);
    });
  }

  close() {
    this.closing = true;
    if (this.ws) this.ws.close();
  }
}
