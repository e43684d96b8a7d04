//! The safe Rust API of kgrt, the kgen runtime: open a [`Device`], load a
//! kgen kernel [`Table`] onto it as a [`Model`], bind [`Weights`] from a GGUF
//! or safetensors file, set dims and inputs, run, read outputs; the device
//! loop, profiles, the caller's device memory; batched serving's
//! [`KvPool`] and [`Batch`].
//!
//! Lifetimes carry kgrt's rules: a `Model<'d, 't>` borrows its device for
//! `'d` and its table for `'t`, so it can outlive neither; `Drop` unloads,
//! closes and frees. A device and its models are used from one thread at a
//! time (`Device` is `Send`, not `Sync`; a `Model` stays on its thread).
//! Every fallible call returns `Result<T, Error>`, the error carrying kgrt's
//! status and one-line message.
//!
//! ```no_run
//! # fn main() -> Result<(), kgrt::Error> {
//! # let table: kgrt::Table<'static> = unimplemented!();
//! let device = kgrt::Device::open("auto")?; // cuda, hip, else the sim
//! let weights = kgrt::Weights::open("model.gguf")?;
//! let mut model = device.load(table)?;
//! model.bind_weights(&weights, false)?;
//! model.set_dim("T", 1)?;
//! model.set_input("tokens", &[1i32])?;
//! model.run()?;
//! let logits: Vec<f32> = model.output("logits")?;
//! # Ok(()) }
//! ```
//!
//! A model cannot outlive its device:
//! ```compile_fail
//! # fn f(table: kgrt::Table<'static>) -> Result<(), kgrt::Error> {
//! let device = kgrt::Device::open("sim")?;
//! let model = device.load(table)?;
//! drop(device); // error: `device` is borrowed by `model`
//! drop(model);
//! # Ok(()) }
//! ```
//! nor its table:
//! ```compile_fail
//! # fn f(device: &kgrt::Device) -> Result<(), kgrt::Error> {
//! let model = {
//!     let raw: kgrt_sys::kgrt_model_table_t = unsafe { std::mem::zeroed() };
//!     let table = unsafe { kgrt::Table::from_raw(&raw) };
//!     device.load(table)? // error: `raw` does not live long enough
//! };
//! # Ok(()) }
//! ```
pub use kgrt_sys as sys;

mod device;
mod error;
mod model;
mod paged;
mod table;
mod weights;

pub use device::{Device, Memory};
pub use error::{Error, Result, Status};
pub use model::{Element, Model, StepProfile};
pub use paged::{Batch, KvPool, KvSeq, Sampling};
pub use table::{Dim, Dtype, Extent, Sym, SymDecl, Table, TensorDecl, TensorInfo};
pub use weights::{WeightInfo, Weights, WeightsFormat};

use std::ffi::{CStr, CString};
use std::os::raw::c_char;

/// `s` as a C string; INVALID_ARGUMENT when it holds a NUL byte.
pub(crate) fn cstring(what: &str, s: &str) -> Result<CString> {
    CString::new(s).map_err(|_| {
        Error::new(
            Status::InvalidArgument,
            format!("{} {:?} holds a NUL byte", what, s),
        )
    })
}

/// A C string kgrt returned (NUL-terminated, printable) as &str; "" for NULL.
///
/// # Safety
/// `p` is NULL or a NUL-terminated string that lives for 'a.
pub(crate) unsafe fn str_from<'a>(p: *const c_char) -> &'a str {
    if p.is_null() {
        return "";
    }
    match CStr::from_ptr(p).to_str() {
        Ok(s) => s,
        Err(e) => std::str::from_utf8(&CStr::from_ptr(p).to_bytes()[..e.valid_up_to()]).unwrap(),
    }
}
