//! Table: a kgen kernel table (kgrt_table.h) and the interface it declares.
use crate::str_from;
use crate::sys;

/// A tensor's dtype (`kgrt_dtype_t`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub enum Dtype {
    F32,
    F16,
    BF16,
    I32,
    Q8_0,
    Q4_0,
    Q4_K,
    Q6_K,
    Other(u32),
}

impl Dtype {
    pub fn from_raw(v: sys::kgrt_dtype_t) -> Dtype {
        match v {
            sys::KGRT_DTYPE_F32 => Dtype::F32,
            sys::KGRT_DTYPE_F16 => Dtype::F16,
            sys::KGRT_DTYPE_BF16 => Dtype::BF16,
            sys::KGRT_DTYPE_I32 => Dtype::I32,
            sys::KGRT_DTYPE_Q8_0 => Dtype::Q8_0,
            sys::KGRT_DTYPE_Q4_0 => Dtype::Q4_0,
            sys::KGRT_DTYPE_Q4_K => Dtype::Q4_K,
            sys::KGRT_DTYPE_Q6_K => Dtype::Q6_K,
            other => Dtype::Other(other),
        }
    }
}

/// A run-time dim of a table and its max.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sym {
    pub name: String,
    pub max: i64,
    /// The model's rank in its communicator (set by kgrt, not the caller).
    pub rank: bool,
    /// A count: 0 ..= max, sizing launches, not tensors (KGRT_SYM_COUNT).
    pub count: bool,
}

/// One dimension of a tensor: a constant or a named dim.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Dim {
    Const(i64),
    Sym(String),
}

/// An input, weight or output of a table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorInfo {
    pub name: String,
    pub dtype: Dtype,
    pub dims: Vec<Dim>,
    /// An input the model keeps on the device across runs (a KV cache).
    pub state: bool,
}

/// A kgen-generated kernel table borrowed for `'t` (generated tables are
/// static data: `Table<'static>`; kgen-build's module gives one).
#[derive(Clone, Copy)]
pub struct Table<'t> {
    raw: &'t sys::kgrt_model_table_t,
}

impl<'t> Table<'t> {
    /// # Safety
    /// `raw` is a kernel table as kgen writes it: its pointers valid, its
    /// strings NUL-terminated, its counts those of its arrays. kgrt checks
    /// every index and size again when it loads the table.
    pub unsafe fn from_raw(raw: &'t sys::kgrt_model_table_t) -> Table<'t> {
        Table { raw }
    }

    pub fn as_raw(&self) -> &'t sys::kgrt_model_table_t {
        self.raw
    }

    /// The model's name ("tiny_llama").
    pub fn name(&self) -> &'t str {
        // SAFETY: from_raw's contract.
        unsafe { str_from(self.raw.name) }
    }

    /// The ranks the model is split over (1: a whole model).
    pub fn ranks(&self) -> u32 {
        self.raw.ranks.max(1)
    }

    /// The arches built into the table ("gfx1100", "sm_90").
    pub fn arches(&self) -> Vec<&'t str> {
        (0..self.raw.num_arches as usize)
            // SAFETY: from_raw's contract.
            .map(|i| unsafe { str_from((**self.raw.arches.add(i)).arch) })
            .collect()
    }

    pub fn syms(&self) -> Vec<Sym> {
        (0..self.raw.num_syms as usize)
            .map(|i| {
                // SAFETY: from_raw's contract.
                let s = unsafe { &*self.raw.syms.add(i) };
                Sym {
                    name: unsafe { str_from(s.name) }.to_string(),
                    max: s.max,
                    rank: s.flags & sys::KGRT_SYM_RANK != 0,
                    count: s.flags & sys::KGRT_SYM_COUNT != 0,
                }
            })
            .collect()
    }

    /// The max of dim `name`, or None.
    pub fn sym_max(&self, name: &str) -> Option<i64> {
        self.syms()
            .into_iter()
            .find(|s| s.name == name)
            .map(|s| s.max)
    }

    fn tensors(&self, p: *const sys::kgrt_tensor_info_t, n: u32) -> Vec<TensorInfo> {
        let syms = self.syms();
        (0..n as usize)
            .map(|i| {
                // SAFETY: from_raw's contract.
                let t = unsafe { &*p.add(i) };
                let rank = (t.rank as usize).min(sys::KGRT_MAX_DIMS);
                TensorInfo {
                    name: unsafe { str_from(t.name) }.to_string(),
                    dtype: Dtype::from_raw(t.dtype),
                    dims: t.dims[..rank]
                        .iter()
                        .map(|d| match syms.get(d.sym as usize) {
                            Some(s) if d.sym >= 0 => Dim::Sym(s.name.clone()),
                            _ => Dim::Const(d.value),
                        })
                        .collect(),
                    state: t.flags & sys::KGRT_TENSOR_STATE != 0,
                }
            })
            .collect()
    }

    pub fn inputs(&self) -> Vec<TensorInfo> {
        self.tensors(self.raw.inputs, self.raw.num_inputs)
    }

    pub fn weights(&self) -> Vec<TensorInfo> {
        self.tensors(self.raw.weights, self.raw.num_weights)
    }

    pub fn outputs(&self) -> Vec<TensorInfo> {
        self.tensors(self.raw.outputs, self.raw.num_outputs)
    }
}

/// A dimension as kgen-build's generated modules spell it (const data).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Extent {
    Const(i64),
    Sym(&'static str),
}

/// A run-time dim of a generated module: its name and max.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SymDecl {
    pub name: &'static str,
    pub max: i64,
}

/// An input, weight or output of a generated module.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TensorDecl {
    pub name: &'static str,
    pub dtype: Dtype,
    pub shape: &'static [Extent],
    /// An input the model keeps on the device across runs.
    pub state: bool,
}
