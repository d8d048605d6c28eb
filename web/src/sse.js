// Server-sent events, read incrementally: feed() takes decoded text as it arrives, in pieces
// of any size, and returns the events it completed. Lines end with CRLF, LF or CR (a CR at
// the end of a piece may be the first half of a CRLF); a line starting with ':' is a comment
// (crux's keep-alive); several `data:` lines of one event are joined with '\n'.
export class SseReader {
  constructor() {
    this.pending = '';
    this.skipLf = false;
    this.event = '';
    this.data = [];
  }

  feed(text) {
    const events = [];
    let start = 0;
    let i = 0;
    if (this.skipLf && text.startsWith('\n')) start = i = 1;
    this.skipLf = false;
    for (; i < text.length; i++) {
      const c = text[i];
      if (c !== '\n' && c !== '\r') continue;
      this.line(this.pending + text.slice(start, i), events);
      this.pending = '';
      if (c === '\r') {
        if (i + 1 === text.length) this.skipLf = true;
        else if (text[i + 1] === '\n') i++;
      }
      start = i + 1;
    }
    this.pending += text.slice(start);
    return events;
  }

  line(line, events) {
    if (line === '') {
      if (this.data.length > 0) events.push({ event: this.event || 'message', data: this.data.join('\n') });
      this.event = '';
      this.data = [];
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.event = value;
  }
}
