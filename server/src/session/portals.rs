//! A session's prepared statements and portals, by name: what Parse and Bind create, Describe
//! and Execute read, Close and `DEALLOCATE` drop. The unnamed statement and portal have the
//! name `""`; an entry without a value is an empty query string's. As in PostgreSQL, a named
//! statement or portal is not replaced (42P05, 42P03: it must be closed first), the unnamed
//! ones are; statements live until closed, portals until their transaction ends (`end_
//! transaction`: at Sync outside a block, at COMMIT or ROLLBACK inside one). The session holds
//! them, so that DEALLOCATE (a statement of the session's sequencer), the end of a transaction
//! and the wire protocol see one store; the wire layer decides what a statement and a portal
//! are (`S`, `P`).

use std::collections::HashMap;
use std::sync::Arc;

use crate::error::ExecError;

/// The unnamed statement's and portal's name.
pub const UNNAMED: &str = "";

pub struct Portals<S, P> {
    statements: HashMap<String, Option<Arc<S>>>,
    portals: HashMap<String, Portal<P>>,
}

struct Portal<P> {
    portal: Option<Arc<P>>,
    /// Whether it ran a statement that returns no rows to read on (PostgreSQL refuses to run
    /// such a portal again).
    done: bool,
}

impl<S, P> Default for Portals<S, P> {
    fn default() -> Self {
        Portals {
            statements: HashMap::new(),
            portals: HashMap::new(),
        }
    }
}

impl<S, P> Portals<S, P> {
    /// Drops the unnamed statement (a Parse of it replaces it even if the new one fails, and a
    /// simple query replaces it).
    pub fn remove_unnamed(&mut self) {
        self.statements.remove(UNNAMED);
        self.portals.remove(UNNAMED);
    }

    /// Stores a statement under `name`; `None` for an empty one. A named statement that exists
    /// is 42P05.
    pub fn put_statement(
        &mut self,
        name: &str,
        statement: Option<Arc<S>>,
    ) -> Result<(), ExecError> {
        if name != UNNAMED && self.statements.contains_key(name) {
            return Err(ExecError::new(
                "42P05",
                format!("prepared statement \"{name}\" already exists"),
            ));
        }
        self.statements.insert(name.to_string(), statement);
        Ok(())
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

    /// Stores a portal under `name`; `None` for an empty one. A named portal that exists is
    /// 42P03 (PostgreSQL's portals are cursors).
    pub fn put_portal(&mut self, name: &str, portal: Option<Arc<P>>) -> Result<(), ExecError> {
        if name != UNNAMED && self.portals.contains_key(name) {
            return Err(ExecError::new(
                "42P03",
                format!("cursor \"{name}\" already exists"),
            ));
        }
        let portal = Portal {
            portal,
            done: false,
        };
        self.portals.insert(name.to_string(), portal);
        Ok(())
    }

    /// The portal named `name`: `None` if there is none, `Some(None)` if it is empty.
    pub fn portal(&self, name: &str) -> Option<Option<Arc<P>>> {
        self.portals.get(name).map(|p| p.portal.clone())
    }

    pub fn remove_portal(&mut self, name: &str) {
        self.portals.remove(name);
    }

    /// Notes that the portal `name`, if it still exists, ran a statement that returns no rows
    /// to read on.
    pub fn mark_done(&mut self, name: &str) {
        if let Some(p) = self.portals.get_mut(name) {
            p.done = true;
        }
    }

    /// Whether the portal `name` exists and ran a statement that returns no rows to read on.
    pub fn is_done(&self, name: &str) -> bool {
        self.portals.get(name).is_some_and(|p| p.done)
    }

    /// The transaction the portals belong to ended: they all go.
    pub fn end_transaction(&mut self) {
        self.portals.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statements_and_portals_by_name() {
        let mut p: Portals<u32, u32> = Portals::default();
        p.put_statement(UNNAMED, Some(Arc::new(1))).unwrap();
        p.put_statement("s", Some(Arc::new(2))).unwrap();
        p.put_statement("e", None).unwrap();
        assert_eq!(p.statement("s"), Some(Some(Arc::new(2))));
        assert_eq!(p.statement("e"), Some(None));
        assert_eq!(p.statement("x"), None);
        // A named statement is not replaced; the unnamed one is.
        assert_eq!(p.put_statement("s", None).unwrap_err().code, "42P05");
        p.put_statement(UNNAMED, Some(Arc::new(5))).unwrap();
        assert_eq!(p.statement(UNNAMED), Some(Some(Arc::new(5))));
        p.remove_named_statements();
        assert_eq!(p.statement("s"), None);
        assert!(!p.remove_statement("s") && p.remove_statement(UNNAMED));

        p.put_portal("p", Some(Arc::new(3))).unwrap();
        p.put_portal(UNNAMED, Some(Arc::new(4))).unwrap();
        assert_eq!(p.put_portal("p", None).unwrap_err().code, "42P03");
        p.mark_done("p");
        assert!(p.is_done("p") && !p.is_done(UNNAMED));
        // A portal that is gone is not done: it does not exist.
        p.remove_portal("p");
        p.mark_done("p");
        assert!(!p.is_done("p") && p.portal("p").is_none());
        p.put_portal("p", Some(Arc::new(6))).unwrap();
        assert!(!p.is_done("p"));
        // Portals end with their transaction; statements stay.
        p.put_statement("t", None).unwrap();
        p.end_transaction();
        assert!(p.portal("p").is_none() && p.portal(UNNAMED).is_none());
        assert_eq!(p.statement("t"), Some(None));
    }
}
