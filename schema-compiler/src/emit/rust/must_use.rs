//! `#[must_use]` on the generated functions whose only effect is their
//! value: builders that take `self` and return it (`with_…`, setters), and
//! pure constructors and getters (`new`, `key`, `tenant`, `for_tenant`).
//! A call whose value is dropped does nothing, so the compiler says so.
//!
//! Decided on the syntax tree, after the emitter and before printing: one
//! rule for every render site, the same as clippy's `must_use_candidate`
//! and `return_self_not_must_use`.

/// Marks every function of `file` that qualifies (see the module doc).
pub(super) fn mark(file: &mut syn::File) {
    mark_items(&mut file.items);
}

fn mark_items(items: &mut [syn::Item]) {
    for item in items {
        if let syn::Item::Fn(f) = item {
            if qualifies(&f.vis, &f.sig, &f.attrs) {
                f.attrs.push(syn::parse_quote!(#[must_use]));
            }
        } else if let syn::Item::Impl(block) = item {
            // A trait's methods are marked, if at all, on the trait.
            if block.trait_.is_some() {
                continue;
            }
            for member in &mut block.items {
                if let syn::ImplItem::Fn(f) = member {
                    if qualifies(&f.vis, &f.sig, &f.attrs) {
                        f.attrs.push(syn::parse_quote!(#[must_use]));
                    }
                }
            }
        } else if let syn::Item::Mod(m) = item {
            if let Some((_, items)) = &mut m.content {
                mark_items(items);
            }
        }
    }
}

/// A public, synchronous function with no `&mut` input whose value is its
/// only effect: it returns something, and not a type that is `must_use`
/// already (`Result`).
fn qualifies(vis: &syn::Visibility, sig: &syn::Signature, attrs: &[syn::Attribute]) -> bool {
    let syn::ReturnType::Type(_, ty) = &sig.output else {
        return false;
    };
    matches!(vis, syn::Visibility::Public(_))
        && sig.asyncness.is_none()
        && !is_unit(ty)
        && !is_result(ty)
        && !sig.inputs.iter().any(mutable_input)
        && !attrs.iter().any(|a| a.path().is_ident("must_use"))
}

fn mutable_input(input: &syn::FnArg) -> bool {
    match input {
        syn::FnArg::Receiver(r) => {
            matches!(r.kind, syn::ReceiverKind::Reference(_, _, Some(_)))
        }
        syn::FnArg::Typed(t) => matches!(&*t.ty, syn::Type::Reference(r) if r.mutability.is_some()),
    }
}

fn is_unit(ty: &syn::Type) -> bool {
    matches!(ty, syn::Type::Tuple(t) if t.elems.is_empty())
}

fn is_result(ty: &syn::Type) -> bool {
    matches!(ty, syn::Type::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "Result"))
}
