//! Binding of `to_jsonb(x)`, `jsonb_build_array(...)` and `jsonb_build_object(k, v, ...)`:
//! each argument becomes `jsonb` by `UnaryFunc::ToJsonb` (unknown literals read as text, as
//! PostgreSQL reads `"any"` arguments; `to_jsonb('x')` is ambiguous there and here), and the
//! builders put the converted values together (`kpg_types::jsonb_build`). Arguments of types
//! whose JSON form kpg does not produce are refused with 0A000; an object key that is an
//! array or `jsonb`, and an odd number of object arguments, with PostgreSQL's 22023.

use crate::builtin::{implicit, unary};
use crate::error::PlanError;
use crate::types::{CastContext, Typed};
use kpg_types::jsonb_build::convertible;
use kpg_types::{ScalarType, UnaryFunc, VariadicFunc};

/// Binds one of the three, or `None` for another name.
pub fn call(name: &str, args: Vec<Typed>) -> Result<Option<Typed>, PlanError> {
    let func = match (name, args.len()) {
        ("to_jsonb", 1) => {
            let a = args.into_iter().next().expect("one argument");
            if a.ty.is_none() {
                return Err(PlanError::new(
                    "42804",
                    "could not determine polymorphic type because input has type unknown",
                ));
            }
            return to_jsonb(a).map(Some);
        }
        ("jsonb_build_array", _) => VariadicFunc::JsonbBuildArray,
        ("jsonb_build_object", n) => {
            if !n.is_multiple_of(2) {
                return Err(PlanError::new(
                    "22023",
                    "argument list must have even number of elements",
                ));
            }
            VariadicFunc::JsonbBuildObject
        }
        _ => return Ok(None),
    };
    let object = func == VariadicFunc::JsonbBuildObject;
    let items = args
        .into_iter()
        .enumerate()
        .map(|(i, a)| match object && i % 2 == 0 {
            true => object_key(name, a),
            false => any_to_jsonb(name, a),
        })
        .collect::<Result<Vec<_>, _>>()?;
    super::variadic(func, items, ScalarType::Jsonb, false).map(Some)
}

/// An object key (of `jsonb_build_object` or `jsonb_object_agg`) as `jsonb` whose text is the
/// key: a float by its own text (`1e+20`, `-0`, as PostgreSQL writes keys), other scalars as
/// `to_jsonb` makes them; an array or `jsonb` key is PostgreSQL's 22023.
pub(crate) fn object_key(name: &str, key: Typed) -> Result<Typed, PlanError> {
    match key.ty {
        Some(t) if t == ScalarType::Jsonb || t.element().is_some() => Err(PlanError::new(
            "22023",
            "key value must be scalar, not array, composite, or json",
        )),
        Some(ScalarType::Float32 | ScalarType::Float64) => {
            let text = crate::types::coerce(key, &ScalarType::Text, CastContext::Explicit)?
                .expect("a float casts to text");
            to_jsonb(text)
        }
        _ => any_to_jsonb(name, key),
    }
}

/// An `"any"` argument as `jsonb`: an unknown literal as text.
fn any_to_jsonb(name: &str, a: Typed) -> Result<Typed, PlanError> {
    let a = match a.ty {
        None => implicit(a.clone(), &ScalarType::Text, name, &[a])?,
        Some(_) => a,
    };
    to_jsonb(a)
}

fn to_jsonb(a: Typed) -> Result<Typed, PlanError> {
    let ty = a.ty.expect("typed above");
    if ty == ScalarType::Jsonb {
        return Ok(a);
    }
    if !convertible(&ty) {
        return Err(PlanError::unsupported(format!(
            "conversion of type {ty} to jsonb"
        )));
    }
    unary(a, UnaryFunc::ToJsonb, ScalarType::Jsonb)
}
