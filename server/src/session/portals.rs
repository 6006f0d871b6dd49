//! A session's prepared statements and portals, by name: what Parse and Bind create, Describe
//! and Execute read, Close and `DEALLOCATE` drop, and Sync ends (the unnamed portal). The
//! unnamed statement and portal have the name `""`; an entry without a value is an empty
//! query string's. The session holds them, so that DEALLOCATE (a statement of the session's
//! sequencer) and the wire protocol see one store; the wire layer decides what a statement and
//! a portal are (`S`, `P`).

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

/// The unnamed statement's and portal's name.
pub const UNNAMED: &str = "";

pub struct Portals<S, P> {
    statements: HashMap<String, Option<Arc<S>>>,
    portals: HashMap<String, Option<Arc<P>>>,
    /// Portals whose statement (not a query) has run: PostgreSQL refuses to run them again.
    done: BTreeSet<String>,
}

impl<S, P> Default for Portals<S, P> {
    fn default() -> Self {
        Portals {
            statements: HashMap::new(),
            portals: HashMap::new(),
            done: BTreeSet::new(),
        }
    }
}

impl<S, P> Portals<S, P> {
    /// Stores a statement under `name` (replacing one of that name); `None` for an empty one.
    pub fn put_statement(&mut self, name: &str, statement: Option<Arc<S>>) {
        self.statements.insert(name.to_string(), statement);
    }

    /// The statement named `name`: `None` if there is none, `Some(None)` if it is empty.
    pub fn statement(&self, name: &str) -> Option<Option<Arc<S>>> {
        self.statements.get(name).cloned()
    }

    /// Drops the statement `name`; false if there was none.
    pub fn remove_statement(&mut self, name: &str) -> bool {
        self.statements.remove(name).is_some()
    }

    /// Drops every named statement (`DEALLOCATE ALL`; the unnamed one is the protocol's).
    pub fn remove_named_statements(&mut self) {
        self.statements.retain(|name, _| name == UNNAMED);
    }

    /// Stores a portal under `name` (replacing one of that name, which has not run then).
    pub fn put_portal(&mut self, name: &str, portal: Option<Arc<P>>) {
        self.done.remove(name);
        self.portals.insert(name.to_string(), portal);
    }

    /// The portal named `name`: `None` if there is none, `Some(None)` if it is empty.
    pub fn portal(&self, name: &str) -> Option<Option<Arc<P>>> {
        self.portals.get(name).cloned()
    }

    pub fn remove_portal(&mut self, name: &str) {
        self.done.remove(name);
        self.portals.remove(name);
    }

    /// Notes that the portal `name` ran a statement that is not a query.
    pub fn mark_done(&mut self, name: &str) {
        self.done.insert(name.to_string());
    }

    /// Whether the portal `name` ran a statement that is not a query.
    pub fn is_done(&self, name: &str) -> bool {
        self.done.contains(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statements_and_portals_by_name() {
        let mut p: Portals<u32, u32> = Portals::default();
        p.put_statement(UNNAMED, Some(Arc::new(1)));
        p.put_statement("s", Some(Arc::new(2)));
        p.put_statement("e", None);
        assert_eq!(p.statement("s"), Some(Some(Arc::new(2))));
        assert_eq!(p.statement("e"), Some(None));
        assert_eq!(p.statement("x"), None);
        p.remove_named_statements();
        assert_eq!(p.statement("s"), None);
        assert_eq!(p.statement(UNNAMED), Some(Some(Arc::new(1))));
        assert!(!p.remove_statement("s") && p.remove_statement(UNNAMED));

        p.put_portal("p", Some(Arc::new(3)));
        p.mark_done("p");
        assert!(p.is_done("p"));
        // A portal bound again under the same name has not run.
        p.put_portal("p", Some(Arc::new(4)));
        assert!(!p.is_done("p"));
        assert_eq!(p.portal("p"), Some(Some(Arc::new(4))));
        p.mark_done("p");
        p.remove_portal("p");
        assert!(!p.is_done("p") && p.portal("p").is_none());
    }
}
