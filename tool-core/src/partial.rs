//! The one shape of a batch load: what loaded, and what failed with where
//! it came from.

use std::fmt;

/// The outcome of loading many things at once (a folder of skills, the
/// operations of an API document, a list of stored references, the tools of
/// an MCP server): every success, plus one [`Failed`] per item that did not
/// load, naming where it came from. Nothing is dropped silently.
///
/// ```
/// use tool_core::Partial;
/// let mut loaded: Partial<&str, String> = Partial::new();
/// loaded.push("calculator");
/// loaded.fail("references[1]", "no provider for kind `teleporter`".to_owned());
/// assert!(loaded.is_partial());
/// assert_eq!(loaded.failed()[0].source, "references[1]");
/// assert_eq!(loaded.into_result().unwrap_err().len(), 1);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Partial<T, E> {
    loaded: Vec<T>,
    failed: Vec<Failed<E>>,
}

/// One item of a batch that did not load.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failed<E> {
    /// Where it came from: a file, an index (`references[3]`), a JSON
    /// pointer, a server id.
    pub source: String,
    /// Why.
    pub error: E,
}

impl<E: fmt::Display> fmt::Display for Failed<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.source, self.error)
    }
}

impl<T, E> Default for Partial<T, E> {
    fn default() -> Self {
        Self {
            loaded: Vec::new(),
            failed: Vec::new(),
        }
    }
}

impl<T, E> Partial<T, E> {
    /// Nothing loaded, nothing failed.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records a success.
    pub fn push(&mut self, item: T) {
        self.loaded.push(item);
    }

    /// Records a failure from `source`.
    pub fn fail(&mut self, source: impl Into<String>, error: E) {
        self.failed.push(Failed {
            source: source.into(),
            error,
        });
    }

    /// What loaded, in order.
    pub fn loaded(&self) -> &[T] {
        &self.loaded
    }

    /// What failed, in order.
    pub fn failed(&self) -> &[Failed<E>] {
        &self.failed
    }

    /// Whether nothing failed.
    pub fn is_complete(&self) -> bool {
        self.failed.is_empty()
    }

    /// Whether some items loaded and some failed.
    pub fn is_partial(&self) -> bool {
        !self.loaded.is_empty() && !self.failed.is_empty()
    }

    /// Both lists.
    pub fn into_parts(self) -> (Vec<T>, Vec<Failed<E>>) {
        (self.loaded, self.failed)
    }

    /// The successes when nothing failed, else the failures (the successes
    /// are dropped: use [`into_parts`](Self::into_parts) to keep them).
    pub fn into_result(self) -> Result<Vec<T>, Vec<Failed<E>>> {
        if self.failed.is_empty() {
            Ok(self.loaded)
        } else {
            Err(self.failed)
        }
    }

    /// The successes when nothing failed, else an error naming every
    /// failure and where it came from (for `?` in a host that treats any
    /// failure as fatal).
    ///
    /// ```
    /// let mut load = tool_core::Partial::<&str, String>::new();
    /// load.push("a");
    /// load.fail("servers[1]", "connection refused".to_owned());
    /// let error = load.into_complete().unwrap_err();
    /// assert_eq!(error.to_string(), "1 of 2 failed to load: servers[1]: connection refused");
    /// assert_eq!(error.failed()[0].source, "servers[1]");
    /// ```
    pub fn into_complete(self) -> Result<Vec<T>, Incomplete<E>> {
        if self.failed.is_empty() {
            Ok(self.loaded)
        } else {
            Err(Incomplete {
                loaded: self.loaded.len(),
                failed: self.failed,
            })
        }
    }

    /// The same outcome with each success mapped.
    pub fn map<U>(self, f: impl FnMut(T) -> U) -> Partial<U, E> {
        Partial {
            loaded: self.loaded.into_iter().map(f).collect(),
            failed: self.failed,
        }
    }
}

/// A batch load that was not complete (see [`Partial::into_complete`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Incomplete<E> {
    loaded: usize,
    failed: Vec<Failed<E>>,
}

impl<E> Incomplete<E> {
    /// What failed, in order.
    pub fn failed(&self) -> &[Failed<E>] {
        &self.failed
    }

    /// How many items did load (and were dropped).
    pub fn loaded(&self) -> usize {
        self.loaded
    }
}

impl<E: fmt::Display> fmt::Display for Incomplete<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let total = self.loaded + self.failed.len();
        write!(f, "{} of {total} failed to load: ", self.failed.len())?;
        for (i, failed) in self.failed.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{failed}")?;
        }
        Ok(())
    }
}

impl<E: fmt::Display + fmt::Debug> std::error::Error for Incomplete<E> {}

impl<T, E> Extend<T> for Partial<T, E> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, iter: I) {
        self.loaded.extend(iter);
    }
}
