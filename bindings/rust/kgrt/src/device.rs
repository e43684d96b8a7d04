//! Device: an open kgrt device, and what a table would take on it.
use crate::error::{call, Result};
use crate::{cstring, str_from, sys, Model, Table};
use std::ptr::{self, NonNull};

/// The device memory a model takes, in bytes (`kgrt_memory_t`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Memory {
    pub total: u64,
    pub arena: u64,
    pub inputs: u64,
    pub weights: u64,
    pub outputs: u64,
    pub state: u64,
}

impl From<sys::kgrt_memory_t> for Memory {
    fn from(m: sys::kgrt_memory_t) -> Memory {
        Memory {
            total: m.total,
            arena: m.arena,
            inputs: m.inputs,
            weights: m.weights,
            outputs: m.outputs,
            state: m.state,
        }
    }
}

pub(crate) fn memory_zero() -> sys::kgrt_memory_t {
    sys::kgrt_memory_t {
        total: 0,
        arena: 0,
        inputs: 0,
        weights: 0,
        outputs: 0,
        state: 0,
    }
}

/// An open device ("sim:gfx1100", "cuda:0", "auto": docs/runtime.md lists
/// the specs). Closed when dropped, after the models that borrow it.
pub struct Device {
    raw: NonNull<sys::kgrt_device_t>,
}

// SAFETY: kgrt lets a device and its models move between threads, used from
// one at a time; Device is not Sync, and a Model (which borrows it) not Send.
unsafe impl Send for Device {}

impl Device {
    pub fn open(spec: &str) -> Result<Device> {
        let spec = cstring("device spec", spec)?;
        let mut raw = ptr::null_mut();
        // SAFETY: valid C string and out pointer; NULL allocator: malloc.
        call(|err| unsafe { sys::kgrt_device_open(spec.as_ptr(), ptr::null(), &mut raw, err) })?;
        Ok(Device {
            raw: NonNull::new(raw).expect("kgrt_device_open published NULL"),
        })
    }

    /// "sim", "sim:gfx1100,wave=64", "cuda:0 (sm_90, NVIDIA H100 ...)".
    pub fn name(&self) -> &str {
        // SAFETY: the name lives as long as the device.
        unsafe { str_from(sys::kgrt_device_name(self.raw.as_ptr())) }
    }

    /// Loads `table` onto this device (the arch matching it is picked).
    pub fn load<'d, 't>(&'d self, table: Table<'t>) -> Result<Model<'d, 't>> {
        let mut raw = ptr::null_mut();
        // SAFETY: the table outlives the model ('t), the device too ('d).
        call(|err| unsafe {
            sys::kgrt_model_load(self.raw.as_ptr(), table.as_raw(), &mut raw, err)
        })?;
        // SAFETY: a model kgrt_model_load just published.
        Ok(unsafe {
            Model::from_raw(
                NonNull::new(raw).expect("kgrt_model_load published NULL"),
                table,
            )
        })
    }

    /// What loading `table` here would allocate, without allocating it.
    pub fn memory(&self, table: Table<'_>) -> Result<Memory> {
        let mut m = memory_zero();
        // SAFETY: valid device, table and out pointer.
        call(|err| unsafe {
            sys::kgrt_model_memory(self.raw.as_ptr(), table.as_raw(), &mut m, err)
        })?;
        Ok(m.into())
    }

    pub fn as_raw(&self) -> *mut sys::kgrt_device_t {
        self.raw.as_ptr()
    }
}

impl Drop for Device {
    fn drop(&mut self) {
        // SAFETY: every model borrowing the device was dropped first.
        unsafe { sys::kgrt_device_close(self.raw.as_ptr()) }
    }
}

impl std::fmt::Debug for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Device")
            .field("name", &self.name())
            .finish()
    }
}
