//! The derive's logic as ordinary code: expansions and errors.

use quote::quote;

use super::derive_entity;

/// The `compile_error!` messages of an expansion.
fn errors(output: &proc_macro2::TokenStream) -> Vec<String> {
    let file: syn::File = syn::parse2(output.clone()).expect("an expansion parses as items");
    file.items
        .iter()
        .filter_map(|item| match item {
            syn::Item::Macro(m)
                if m.mac.path.segments.last().map(|s| s.ident.to_string())
                    == Some("compile_error".to_owned()) =>
            {
                let lit: syn::LitStr = m.mac.parse_body().ok()?;
                Some(lit.value())
            }
            _ => None,
        })
        .collect()
}

#[test]
fn a_bound_struct_gets_the_impl_the_build_script_path_generates() {
    let output = derive_entity(quote! {
        #[singletable(spec = "../schemas/support_ticket.yaml", entity = "Ticket")]
        pub struct Ticket {
            pub id: String,
            pub title: String,
            pub status: Status,
            pub resolver: Option<String>,
            pub created_at: ::singletable_runtime::DateTime,
        }
    });
    assert!(errors(&output).is_empty(), "{output}");
    let spec = std::fs::read_to_string("../schemas/support_ticket.yaml").unwrap();
    let compiled = crate::Compiler::new()
        .source("support_ticket.yaml", spec)
        .compile();
    let generated = crate::emit::rust::emit_rust(&compiled.specs[0].spec).to_string();
    let derived = output.to_string();
    let start = derived.find("impl __rt :: Entity for Ticket").unwrap();
    let end = derived[start..]
        .find("# [doc = \" The primary key attributes")
        .unwrap()
        + start;
    let derived_impl = derived[start..end].replace(":: std :: string :: String", "String");
    // Field types are spelt as the user spelt them; everything else is the same.
    let generated_impl = generated.replace(":: std :: string :: String", "String");
    let derived_impl = derived_impl.replace("__SingletableTenantId", "TenantId");
    assert!(
        generated_impl.contains(derived_impl.trim()),
        "{derived_impl}"
    );
    assert!(derived.contains("include_bytes"), "the spec is tracked");
}

#[test]
fn inline_keys_expand_to_an_impl() {
    let output = derive_entity(quote! {
        #[singletable(table = "Notes", tenant = "tenant", pk = "TENANT#<tenant>|NOTE#<id>", sk = "NOTE",
                      index(name = "GSI1", pk = "TENANT#<tenant>|AUTHOR#<author>", sk = "<id>"))]
        struct Note {
            #[singletable(pattern = "^[a-z0-9]{1,16}$")]
            id: String,
            #[singletable(pattern = "^[a-z0-9]{1,16}$")]
            author: Option<String>,
            text: String,
            #[singletable(skip)]
            cache: Vec<u8>,
        }
    });
    assert!(errors(&output).is_empty(), "{output}");
    let text = output.to_string();
    assert!(text.contains("impl __rt :: Entity for Note"));
    assert!(text.contains("\"gsi1_pk\""), "{text}");
    assert!(text.contains("cache : Default :: default ()"));
}

#[test]
fn every_field_problem_is_reported_at_once_with_the_spec_location() {
    let output = derive_entity(quote! {
        #[singletable(spec = "../schemas/support_ticket.yaml", entity = "Ticket")]
        struct Ticket {
            id: Option<String>,
            title: i64,
            status: String,
            titel: String,
        }
    });
    let errors = errors(&output);
    assert_eq!(errors.len(), 6, "{errors:#?}");
    assert!(errors[0].contains(
        "attribute `id` of entity `Ticket` (../schemas/support_ticket.yaml:30:7) is required"
    ));
    assert!(errors
        .iter()
        .any(|e| e.contains("`title`") && e.contains("must be `String`")));
    assert!(errors
        .iter()
        .any(|e| e.contains("`status`") && e.contains("an enum type")));
    assert!(errors
        .iter()
        .any(|e| e.contains("field `titel`") && e.contains("did you mean `title`")));
    assert!(errors
        .iter()
        .any(|e| e.starts_with("no field holds attribute `resolver`")));
    assert!(errors
        .iter()
        .any(|e| e.starts_with("no field holds attribute `created_at`")));
}

#[test]
fn spec_and_template_errors_carry_their_position_and_code() {
    let dir = std::env::temp_dir().join(format!("singletable-derive-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("bad.yaml"),
        "version: 1\ntable: { name: T1x, partition_key: pk }\ntenant: {}\nentities:\n  A:\n    attributes: { id: string }\n    key: { pk: \"T#<tenent>|<id>\" }\n",
    )
    .unwrap();
    let spec = dir.join("bad.yaml").display().to_string();
    let output = derive_entity(quote!(
        #[singletable(spec = #spec)]
        struct A {
            id: String,
        }
    ));
    let found = errors(&output);
    assert!(
        found.iter().any(|e| e.contains(
            "bad.yaml:7:19: unknown placeholder `<tenent>` [singletable::unknown_placeholder]"
        )),
        "{found:#?}"
    );

    let output = derive_entity(quote! {
        #[singletable(table = "Notes", pk = "NOTE#<idd>")]
        struct Note { #[singletable(pattern = "^[a-z]+$")] id: String }
    });
    let errors = errors(&output);
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert!(errors[0].starts_with("unknown placeholder `<idd>` [singletable::unknown_placeholder]"));
}

#[test]
fn malformed_input_is_an_error_never_a_panic() {
    let inputs = [
        quote!(
            struct A(String);
        ),
        quote!(
            enum A {
                B,
            }
        ),
        quote!(union A { b: u32 }),
        quote!(
            #[singletable(spec)]
            struct A {
                a: String,
            }
        ),
        quote!(
            #[singletable(spec = 1)]
            struct A {
                a: String,
            }
        ),
        quote!(
            #[singletable(table = "T", pk = "A#<a>", index(pk = "X"))]
            struct A {
                a: String,
            }
        ),
        quote!(
            #[singletable(spec = "nowhere.yaml")]
            struct A<T> {
                a: T,
            }
        ),
        quote!(
            #[singletable(table = "T", pk = "<<>>#<")]
            struct A {
                #[singletable(rename = 3)]
                a: String,
            }
        ),
        quote!(struct),
    ];
    for input in inputs {
        let output = derive_entity(input.clone());
        assert!(!errors(&output).is_empty(), "{input} gave {output}");
    }
}
