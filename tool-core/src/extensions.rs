//! A small typed map for what hosts attach to a call's context.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

type Slot = (&'static str, Arc<dyn Any + Send + Sync>);

/// Values keyed by their type: per-user credentials for an API tool, a device
/// session for remote dispatch, a database handle for a host's own tools.
///
/// At most one value per type; wrap a value in a newtype to keep two of the
/// same type apart. Cloning is cheap (the map is shared, copied only when a
/// clone is changed), so every call of a batch can carry the same
/// extensions. Models never see them and cannot set them; the free JSON
/// [`ToolContext::metadata`](crate::ToolContext::metadata) is for what may be
/// serialised, extensions are for what is typed.
///
/// ```
/// use tool_core::Extensions;
///
/// #[derive(Debug, PartialEq)]
/// struct ApiToken(String);
///
/// let mut ext = Extensions::new();
/// assert!(ext.insert(ApiToken("t-1".into())).is_none());
/// assert_eq!(ext.get::<ApiToken>(), Some(&ApiToken("t-1".into())));
/// assert_eq!(ext.get::<u32>(), None);
///
/// let copy = ext.clone();
/// ext.insert(ApiToken("t-2".into()));
/// assert_eq!(copy.get::<ApiToken>().unwrap().0, "t-1"); // the clone is unchanged
/// ```
#[derive(Clone, Default)]
pub struct Extensions {
    map: Option<Arc<HashMap<TypeId, Slot>>>,
}

impl Extensions {
    /// An empty map (no allocation until the first insert).
    pub fn new() -> Self {
        Self::default()
    }

    /// Inserts `value`, returning the value of the same type it replaced.
    pub fn insert<T: Send + Sync + 'static>(&mut self, value: T) -> Option<Arc<T>> {
        self.insert_arc(Arc::new(value))
    }

    /// Inserts a shared value, returning the value of the same type it replaced.
    pub fn insert_arc<T: Send + Sync + 'static>(&mut self, value: Arc<T>) -> Option<Arc<T>> {
        let map = Arc::make_mut(self.map.get_or_insert_with(Default::default));
        map.insert(TypeId::of::<T>(), (std::any::type_name::<T>(), value))
            .and_then(|(_, old)| old.downcast::<T>().ok())
    }

    /// The value of type `T`, if one was inserted.
    pub fn get<T: Send + Sync + 'static>(&self) -> Option<&T> {
        self.map
            .as_ref()?
            .get(&TypeId::of::<T>())
            .and_then(|(_, value)| value.downcast_ref::<T>())
    }

    /// A shared handle on the value of type `T` (to move into a spawned task).
    pub fn get_arc<T: Send + Sync + 'static>(&self) -> Option<Arc<T>> {
        let (_, value) = self.map.as_ref()?.get(&TypeId::of::<T>())?;
        Arc::clone(value).downcast::<T>().ok()
    }

    /// Whether a value of type `T` is present.
    pub fn contains<T: Send + Sync + 'static>(&self) -> bool {
        self.map
            .as_ref()
            .is_some_and(|map| map.contains_key(&TypeId::of::<T>()))
    }

    /// Removes and returns the value of type `T`.
    pub fn remove<T: Send + Sync + 'static>(&mut self) -> Option<Arc<T>> {
        let map = self.map.as_mut()?;
        if !map.contains_key(&TypeId::of::<T>()) {
            return None;
        }
        Arc::make_mut(map)
            .remove(&TypeId::of::<T>())
            .and_then(|(_, old)| old.downcast::<T>().ok())
    }

    /// Number of values.
    pub fn len(&self) -> usize {
        self.map.as_ref().map_or(0, |map| map.len())
    }

    /// Whether the map is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl fmt::Debug for Extensions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut names: Vec<&str> = self
            .map
            .iter()
            .flat_map(|map| map.values().map(|(name, _)| *name))
            .collect();
        names.sort_unstable();
        f.debug_set().entries(names).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replace_returns_the_old_value_and_remove_empties() {
        let mut ext = Extensions::new();
        assert!(ext.is_empty());
        ext.insert(1u8);
        assert_eq!(ext.insert(2u8).as_deref(), Some(&1));
        assert_eq!(ext.len(), 1);
        assert_eq!(ext.remove::<u8>().as_deref(), Some(&2));
        assert!(ext.remove::<u8>().is_none());
        assert!(!ext.contains::<u8>());
    }

    #[test]
    fn debug_lists_type_names_not_values() {
        let mut ext = Extensions::new();
        ext.insert(String::from("secret"));
        let shown = format!("{ext:?}");
        assert!(shown.contains("String"), "{shown}");
        assert!(!shown.contains("secret"), "{shown}");
    }
}
