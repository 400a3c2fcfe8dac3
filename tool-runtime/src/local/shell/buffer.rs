//! A bounded output buffer: keeps the head and the tail of a stream, counts
//! everything, and hands out only what was produced since the last read.

/// One output stream of a command (stdout or stderr).
///
/// The first `head_cap` bytes are kept forever, the last `tail_cap` bytes are
/// kept in a ring; bytes in between are counted and dropped, so a command
/// printing gigabytes costs at most `head_cap + tail_cap` bytes of memory.
#[derive(Debug)]
pub(crate) struct StreamBuffer {
    head: Vec<u8>,
    head_cap: usize,
    ring: Vec<u8>,
    ring_cap: usize,
    /// Index of the oldest byte once the ring is full.
    ring_pos: usize,
    total: u64,
    cursor: u64,
}

/// What one read returned.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Chunk {
    /// The kept bytes (with a marker where bytes were dropped).
    pub(crate) text: String,
    /// Bytes produced since the previous read.
    pub(crate) new_bytes: u64,
    /// Of those, bytes no longer kept.
    pub(crate) dropped_bytes: u64,
}

impl StreamBuffer {
    pub(crate) fn new(head_cap: usize, tail_cap: usize) -> Self {
        Self {
            head: Vec::new(),
            head_cap,
            ring: Vec::new(),
            ring_cap: tail_cap,
            ring_pos: 0,
            total: 0,
            cursor: 0,
        }
    }

    /// Bytes written since the start.
    pub(crate) fn total(&self) -> u64 {
        self.total
    }

    /// Appends `data`.
    pub(crate) fn push(&mut self, mut data: &[u8]) {
        self.total += data.len() as u64;
        let to_head = (self.head_cap - self.head.len()).min(data.len());
        self.head.extend_from_slice(&data[..to_head]);
        data = &data[to_head..];
        let cap = self.ring_cap;
        if data.is_empty() || cap == 0 {
            return;
        }
        if data.len() >= cap {
            self.ring.clear();
            self.ring.extend_from_slice(&data[data.len() - cap..]);
            self.ring_pos = 0;
            return;
        }
        if self.ring.len() < cap {
            let fill = (cap - self.ring.len()).min(data.len());
            self.ring.extend_from_slice(&data[..fill]);
            data = &data[fill..];
            if data.is_empty() {
                return;
            }
        }
        let first = (cap - self.ring_pos).min(data.len());
        self.ring[self.ring_pos..self.ring_pos + first].copy_from_slice(&data[..first]);
        let second = data.len() - first;
        self.ring[..second].copy_from_slice(&data[first..]);
        self.ring_pos = (self.ring_pos + data.len()) % cap;
    }

    /// The ring's bytes, oldest first.
    fn tail(&self) -> Vec<u8> {
        if self.ring.len() < self.ring_cap {
            return self.ring.clone();
        }
        let mut out = Vec::with_capacity(self.ring.len());
        out.extend_from_slice(&self.ring[self.ring_pos..]);
        out.extend_from_slice(&self.ring[..self.ring_pos]);
        out
    }

    /// Everything produced since the previous read (or the start), with a
    /// marker in place of bytes that were not kept; moves the read cursor.
    pub(crate) fn read_new(&mut self) -> Chunk {
        let from = self.cursor;
        let total = self.total;
        self.cursor = total;
        let new_bytes = total - from;
        if new_bytes == 0 {
            return Chunk::default();
        }
        let head_len = self.head.len() as u64;
        let tail_start = total - self.ring.len() as u64;
        let mut bytes = Vec::new();
        if from < head_len {
            bytes.extend_from_slice(&self.head[from as usize..]);
        }
        let dropped = tail_start.saturating_sub(from.max(head_len));
        if dropped > 0 {
            bytes.extend_from_slice(format!("\n[… {dropped} bytes not kept …]\n").as_bytes());
        }
        let start = from.max(tail_start);
        if start < total {
            let tail = self.tail();
            bytes.extend_from_slice(&tail[(start - tail_start) as usize..]);
        }
        Chunk {
            text: String::from_utf8_lossy(&bytes).into_owned(),
            new_bytes,
            dropped_bytes: dropped,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_output_is_returned_whole_then_only_new_bytes() {
        let mut b = StreamBuffer::new(8, 8);
        b.push(b"hello ");
        assert_eq!(b.read_new().text, "hello ");
        b.push(b"world");
        let c = b.read_new();
        assert_eq!(c.text, "world");
        assert_eq!(c.new_bytes, 5);
        assert_eq!(c.dropped_bytes, 0);
        assert_eq!(b.read_new(), Chunk::default());
    }

    #[test]
    fn huge_output_keeps_head_and_tail_and_counts_the_rest() {
        let mut b = StreamBuffer::new(4, 4);
        for _ in 0..1000 {
            b.push(b"0123456789");
        }
        b.push(b"END!");
        assert_eq!(b.total(), 10_004);
        let c = b.read_new();
        assert!(c.text.starts_with("0123"));
        assert!(c.text.ends_with("END!"));
        assert_eq!(c.dropped_bytes, 10_004 - 8);
        assert!(c.text.contains("9996 bytes not kept"));
    }

    #[test]
    fn ring_wraps_byte_exactly() {
        let mut b = StreamBuffer::new(0, 5);
        b.push(b"abc");
        b.push(b"def");
        b.push(b"g");
        assert_eq!(b.tail(), b"cdefg");
        let c = b.read_new();
        assert_eq!(c.text, "\n[… 2 bytes not kept …]\ncdefg");
        b.push(b"hi");
        assert_eq!(b.read_new().text, "hi");
    }
}
