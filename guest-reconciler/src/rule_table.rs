//! Ordered rule tables: each rule's data in a static table, and the conditions in one function that returns the first rule that applies.

/// Declares a rule table: `$table`, a static array of the rules' data (their
/// fields other than the condition), and `$first`, which returns the first
/// rule whose `when` condition holds for the facts, else `$default`.
///
/// The conditions are compiled into one function rather than kept as
/// function pointers beside the data: the first call through a pointer to
/// each function makes a component's host initialise a table entry, again
/// in every fresh instance, and a pointer call can be neither inlined nor
/// predicted as well as a chain of tests.
macro_rules! rule_table {
    (
        $(#[$table_doc:meta])*
        $vis:vis static $table:ident: [$rule:ident; $n:literal];
        $(#[$first_doc:meta])*
        $first_vis:vis fn $first:ident(&$facts:ty) else $default:ident;
        $(
            $kind:ident { $($field:ident: $value:expr),+ $(,)? } when |$f:ident| $when:expr
        ),+ $(,)?
    ) => {
        $(#[$table_doc])*
        $vis static $table: [$rule; $n] = [$($kind { $($field: $value),+ }),+];

        $(#[$first_doc])*
        #[allow(unused_assignments)]
        $first_vis fn $first(facts: &$facts) -> &'static $rule {
            let mut index = 0;
            $(
                let $f = facts;
                if $when {
                    return &$table[index];
                }
                index += 1;
            )+
            &$default
        }
    };
}

pub(crate) use rule_table;
